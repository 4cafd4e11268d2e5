// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// TestGatewayClientAuth runs the gateway with client authentication on
// (XLAOOM_TLS_CLIENT_CA_FILE): an agent presenting a certificate signed by that
// CA delivers over mutual TLS, while a client without a certificate, a client
// with a certificate from another CA and a plain-text client are refused.
func TestGatewayClientAuth(t *testing.T) {
	pki := newTestPKI(t)
	gw := startGateway(t, "gateway", pki, true)

	logs := newJobLogs(filepath.Join(t.TempDir(), "jobs"))
	logs.write(t, "trainer", 12, 4)
	startAgent(t, "agent", logs, filepath.Join(t.TempDir(), "storage"), "beginning", pki, true, gw)
	eventually(t, 60*time.Second, func() string {
		copies, _ := logs.delivery(gw.read(t))
		if n, _ := logs.missing(copies); n > 0 {
			return fmt.Sprintf("%d of %d records not delivered over mutual TLS", n, logs.total())
		}
		return ""
	})
	if _, problems := logs.delivery(gw.read(t)); len(problems) > 0 {
		t.Errorf("%v", problems)
	}

	// OTLP/HTTP requests straight to the gateway: only the one with the
	// agent's certificate gets through.
	post := func(cfg *tls.Config, scheme string) error {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
		resp, err := c.Post(scheme+"://"+gw.http+"/v1/logs", "application/json", bytes.NewReader([]byte(`{"resourceLogs":[]}`)))
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return nil
	}
	if err := post(pki.clientTLS(t, true), "https"); err != nil {
		t.Errorf("client with a certificate signed by the CA refused: %v", err)
	}
	if err := post(pki.clientTLS(t, false), "https"); err == nil {
		t.Error("client without a certificate accepted")
	} else {
		t.Logf("client without a certificate refused: %v", err)
	}
	selfSigned := pki.clientTLS(t, false)
	selfSigned.Certificates = []tls.Certificate{untrustedClientCert(t)}
	if err := post(selfSigned, "https"); err == nil {
		t.Error("client with a certificate from an unknown CA accepted")
	}
	if err := post(nil, "http"); err == nil {
		t.Error("plain-text client accepted")
	}
}

// untrustedClientCert is a client certificate signed by a CA the gateway does
// not trust.
func untrustedClientCert(t *testing.T) tls.Certificate {
	t.Helper()
	other := newTestPKI(t) // a second, unrelated CA and its client certificate
	cert, err := tls.LoadX509KeyPair(other.ClientCert, other.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
