// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The restart-policy examples act on the wrapper's statuses: these tests
// read them (there is no cluster here) and check that they name the
// statuses and flags the wrapper has.

var examplesDir = filepath.Join("..", "..", "..", "..", "examples", "restart-policy")

type exitCodeRule struct {
	Action      string `yaml:"action"`
	OnExitCodes *struct {
		ContainerName string `yaml:"containerName"`
		Operator      string `yaml:"operator"`
		Values        []int  `yaml:"values"`
	} `yaml:"onExitCodes"`
	OnPodConditions []struct {
		Type string `yaml:"type"`
	} `yaml:"onPodConditions"`
}

type jobSpec struct {
	BackoffLimit     *int `yaml:"backoffLimit"`
	PodFailurePolicy struct {
		Rules []exitCodeRule `yaml:"rules"`
	} `yaml:"podFailurePolicy"`
	Template struct {
		Spec struct {
			RestartPolicy string `yaml:"restartPolicy"`
			Containers    []struct {
				Name    string   `yaml:"name"`
				Command []string `yaml:"command"`
			} `yaml:"containers"`
		} `yaml:"spec"`
	} `yaml:"template"`
}

func readYAML(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(examplesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// checkJob checks that a Job's podFailurePolicy fails the Job on the futile
// status of the container that runs `xlaoom run`, counts the retriable one,
// and that the wrapper accepts the flags the container passes.
func checkJob(t *testing.T, name string, spec *jobSpec) {
	t.Helper()
	if spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("%s: restartPolicy %q: podFailurePolicy needs Never", name, spec.Template.Spec.RestartPolicy)
	}
	var wrapped string
	for _, c := range spec.Template.Spec.Containers {
		if len(c.Command) > 2 && c.Command[0] == "xlaoom" && c.Command[1] == "run" {
			wrapped = c.Name
			if _, status, _ := parse(c.Command[2:], &bytes.Buffer{}); status != 0 {
				t.Errorf("%s: xlaoom run refuses the container's arguments %q", name, c.Command[2:])
			}
		}
	}
	if wrapped == "" {
		t.Fatalf("%s: no container runs xlaoom run", name)
	}
	actions := map[int]string{}
	for _, r := range spec.PodFailurePolicy.Rules {
		if r.OnExitCodes == nil {
			continue
		}
		if r.OnExitCodes.ContainerName != wrapped || r.OnExitCodes.Operator != "In" {
			t.Errorf("%s: rule %s on container %q operator %s; want container %q, In", name, r.Action, r.OnExitCodes.ContainerName, r.OnExitCodes.Operator, wrapped)
		}
		for _, v := range r.OnExitCodes.Values {
			actions[v] = r.Action
		}
	}
	if actions[DefaultFutileExit] != "FailJob" {
		t.Errorf("%s: exit %d (futile) gets %q, want FailJob", name, DefaultFutileExit, actions[DefaultFutileExit])
	}
	if actions[DefaultMayHelpExit] != "Count" {
		t.Errorf("%s: exit %d (a rerun may help) gets %q, want Count", name, DefaultMayHelpExit, actions[DefaultMayHelpExit])
	}
}

func TestJobExample(t *testing.T) {
	var job struct {
		Kind string  `yaml:"kind"`
		Spec jobSpec `yaml:"spec"`
	}
	readYAML(t, "job.yaml", &job)
	if job.Kind != "Job" {
		t.Fatalf("kind %q", job.Kind)
	}
	checkJob(t, "job.yaml", &job.Spec)
	if job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit < 1 {
		t.Errorf("backoffLimit %v: a failure a rerun may help needs reruns to spend", job.Spec.BackoffLimit)
	}
}

// A JobSet fails on the futile status through the reason the Job's FailJob
// rule gives (PodFailurePolicy), and restarts on the others: each Job fails
// at its first failed pod (backoffLimit 0).
func TestJobSetExample(t *testing.T) {
	var js struct {
		Kind string `yaml:"kind"`
		Spec struct {
			FailurePolicy struct {
				MaxRestarts int `yaml:"maxRestarts"`
				Rules       []struct {
					Action              string   `yaml:"action"`
					OnJobFailureReasons []string `yaml:"onJobFailureReasons"`
				} `yaml:"rules"`
			} `yaml:"failurePolicy"`
			ReplicatedJobs []struct {
				Name     string `yaml:"name"`
				Template struct {
					Spec jobSpec `yaml:"spec"`
				} `yaml:"template"`
			} `yaml:"replicatedJobs"`
		} `yaml:"spec"`
	}
	readYAML(t, "jobset.yaml", &js)
	if js.Kind != "JobSet" {
		t.Fatalf("kind %q", js.Kind)
	}
	fp := js.Spec.FailurePolicy
	if len(fp.Rules) == 0 || fp.Rules[0].Action != "FailJobSet" || !slices.Contains(fp.Rules[0].OnJobFailureReasons, "PodFailurePolicy") {
		t.Errorf("the first failurePolicy rule is %+v, want FailJobSet on PodFailurePolicy", fp.Rules)
	}
	if fp.MaxRestarts < 1 {
		t.Errorf("maxRestarts %d: a failure a rerun may help needs restarts to spend", fp.MaxRestarts)
	}
	if len(js.Spec.ReplicatedJobs) == 0 {
		t.Fatal("no replicatedJobs")
	}
	for _, rj := range js.Spec.ReplicatedJobs {
		checkJob(t, "jobset.yaml "+rj.Name, &rj.Template.Spec)
		if b := rj.Template.Spec.BackoffLimit; b == nil || *b != 0 {
			t.Errorf("%s: backoffLimit %v, want 0: the JobSet restarts, not the Job", rj.Name, b)
		}
	}
}

// The Slurm script's xlaoom run line parses, and its case arms are the
// wrapper's statuses.
func TestSlurmExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(examplesDir, "train.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^xlaoom run (.*)$`).FindSubmatch(b)
	if line == nil {
		t.Fatal("train.sbatch runs no xlaoom run")
	}
	o, status, _ := parse(strings.Fields(string(line[1])), &bytes.Buffer{})
	if status != 0 || o.retries < 1 || o.batchEnv != "BATCH_SIZE" {
		t.Errorf("xlaoom run %s: status %d, options %+v; want reruns and --batch-env=BATCH_SIZE", line[1], status, o)
	}
	for _, arm := range []string{"78)", "42)"} {
		if !bytes.Contains(b, []byte("\n"+arm)) {
			t.Errorf("train.sbatch has no case arm %s", arm)
		}
	}
	if DefaultFutileExit != 78 || DefaultMayHelpExit != 42 {
		t.Errorf("the examples and docs name 78 and 42; the wrapper's defaults are %d and %d", DefaultFutileExit, DefaultMayHelpExit)
	}
}
