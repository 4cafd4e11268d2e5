// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testPKI is a throw-away certificate authority with one server certificate
// (for 127.0.0.1 and localhost) and one client certificate, written as PEM
// files the way a kubernetes.io/tls secret is mounted (ca.crt, tls.crt, tls.key).
type testPKI struct {
	CAFile, ServerCert, ServerKey, ClientCert, ClientKey string
}

// newTestPKI generates the certificates into a temporary directory.
func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	dir := t.TempDir()
	caCert, caKey := newCA(t, "xlaoom test CA")
	p := testPKI{
		CAFile:     filepath.Join(dir, "ca.crt"),
		ServerCert: filepath.Join(dir, "tls.crt"),
		ServerKey:  filepath.Join(dir, "tls.key"),
		ClientCert: filepath.Join(dir, "client.crt"),
		ClientKey:  filepath.Join(dir, "client.key"),
	}
	writePEM(t, p.CAFile, "CERTIFICATE", caCert.Raw)
	issue(t, caCert, caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "otel-gateway"},
		DNSNames:    []string{"localhost", "otel-gateway"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, p.ServerCert, p.ServerKey)
	issue(t, caCert, caKey, &x509.Certificate{
		Subject:     pkix.Name{CommonName: "otel-agent"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, p.ClientCert, p.ClientKey)
	return p
}

// gatewayTLSEnv points examples/gateway.yaml at the server certificate; with
// clientAuth the gateway also requires client certificates signed by the CA.
func (p testPKI) gatewayTLSEnv(clientAuth bool) []string {
	env := []string{"XLAOOM_TLS_CERT_FILE=" + p.ServerCert, "XLAOOM_TLS_KEY_FILE=" + p.ServerKey}
	if clientAuth {
		env = append(env, "XLAOOM_TLS_CLIENT_CA_FILE="+p.CAFile)
	}
	return env
}

// agentTLSEnv makes examples/agent.yaml trust the CA; withClientCert also
// presents the client certificate.
func (p testPKI) agentTLSEnv(withClientCert bool) []string {
	env := []string{"XLAOOM_TLS_CA_FILE=" + p.CAFile}
	if withClientCert {
		env = append(env, "XLAOOM_TLS_CLIENT_CERT_FILE="+p.ClientCert, "XLAOOM_TLS_CLIENT_KEY_FILE="+p.ClientKey)
	}
	return env
}

var serial int64

// sign gives tmpl the next serial number and a validity from an hour ago to
// a day ahead, and signs it for a new P-256 key with parent's key (itself
// when parent is nil: a self-signed certificate). It returns the
// certificate's DER and the new key.
func sign(t *testing.T, tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial++
	tmpl.SerialNumber = big.NewInt(serial)
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	return der, key
}

func newCA(t *testing.T, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	der, key := sign(t, &x509.Certificate{
		Subject:               pkix.Name{CommonName: name},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil, nil)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func issue(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, tmpl *x509.Certificate, certFile, keyFile string) {
	t.Helper()
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, key := sign(t, tmpl, ca, caKey)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// clientTLS is a Go TLS client configuration that trusts the test CA and,
// withClientCert, presents the client certificate.
func (p testPKI) clientTLS(t *testing.T, withClientCert bool) *tls.Config {
	t.Helper()
	pemCA, err := os.ReadFile(p.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemCA) {
		t.Fatal("no CA certificate in " + p.CAFile)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if withClientCert {
		cert, err := tls.LoadX509KeyPair(p.ClientCert, p.ClientKey)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg
}
