package main

// Tests of deploy/k8s and deploy/Dockerfile: every manifest decoded strictly with the Kubernetes API
// types, the invariants that tie them together, and the pods' own commands — taken from the decoded manifests —
// run here for N shards, merged by the merge Job's command, and compared with an unsharded run of the same spec.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"

	"webbench/results"
)

const (
	k8sDir     = "../../deploy/k8s"
	dockerfile = "../../deploy/Dockerfile"
)

// kustomization is the part of kustomize's Kustomization (kustomize.config.k8s.io/v1beta1) the deploy folder
// uses; any other field is an error (decoded strictly like the manifests).
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Namespace  string   `json:"namespace"`
	Resources  []string `json:"resources"`
	Images     []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

// k8sSet is every object of deploy/k8s, decoded.
type k8sSet struct {
	kust    kustomization
	files   map[string][]any // file name → its objects, in order
	config  *corev1.ConfigMap
	pvc     *corev1.PersistentVolumeClaim
	secret  *corev1.Secret
	shards  *batchv1.Job
	merge   *batchv1.Job
	allJobs []*batchv1.Job
}

// splitYAML splits a multi-document YAML stream on its "---" separators (the apimachinery reader kubectl uses),
// dropping documents that hold nothing but comments.
func splitYAML(b []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		var probe any
		if err := sigsyaml.Unmarshal(doc, &probe); err != nil {
			return nil, err
		}
		if probe != nil {
			docs = append(docs, doc)
		}
	}
}

// strictDecode decodes one YAML document into v as the API server's strict field validation does: duplicate
// keys, unknown fields and fields in the wrong case are errors (sigs.k8s.io/json, case-sensitive).
func strictDecode(doc []byte, v any) error {
	j, err := sigsyaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strict, err := sigsjson.UnmarshalStrict(j, v)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}

// decodeObject decodes a manifest document into its API type, chosen by apiVersion and kind; a kind the deploy
// folder has no business holding is an error.
func decodeObject(doc []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := sigsyaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "v1 ConfigMap":
		obj = &corev1.ConfigMap{}
	case "v1 PersistentVolumeClaim":
		obj = &corev1.PersistentVolumeClaim{}
	case "v1 Secret":
		obj = &corev1.Secret{}
	default:
		return nil, fmt.Errorf("unexpected apiVersion %q kind %q", tm.APIVersion, tm.Kind)
	}
	return obj, strictDecode(doc, obj)
}

// loadK8s decodes every YAML file of deploy/k8s.
func loadK8s(t *testing.T) *k8sSet {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(k8sDir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests in %s: %v", k8sDir, err)
	}
	s := &k8sSet{files: map[string][]any{}}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		if name == "kustomization.yaml" {
			if err := strictDecode(b, &s.kust); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			continue
		}
		docs, err := splitYAML(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, doc := range docs {
			obj, err := decodeObject(doc)
			if err != nil {
				t.Fatalf("%s document %d: %v", name, i+1, err)
			}
			s.files[name] = append(s.files[name], obj)
			switch o := obj.(type) {
			case *corev1.ConfigMap:
				s.config = o
			case *corev1.PersistentVolumeClaim:
				s.pvc = o
			case *corev1.Secret:
				s.secret = o
			case *batchv1.Job:
				s.allJobs = append(s.allJobs, o)
				switch o.Name {
				case "webbench-shards":
					s.shards = o
				case "webbench-merge":
					s.merge = o
				}
			}
		}
	}
	if s.config == nil || s.pvc == nil || s.secret == nil || s.shards == nil || s.merge == nil {
		t.Fatalf("deploy/k8s lacks a piece: config %v, pvc %v, secret %v, shards job %v, merge job %v",
			s.config != nil, s.pvc != nil, s.secret != nil, s.shards != nil, s.merge != nil)
	}
	return s
}

// shardFlag finds `--shard k8s/N` in the container's command and args and returns N.
func shardFlag(t *testing.T, c corev1.Container) int {
	t.Helper()
	m := regexp.MustCompile(`--shard k8s/(\d+)\b`).FindAllStringSubmatch(strings.Join(append(slices.Clone(c.Command), c.Args...), " "), -1)
	if len(m) != 1 {
		t.Fatalf("container %s: want one --shard k8s/N in its command, found %d", c.Name, len(m))
	}
	n, _ := strconv.Atoi(m[0][1])
	return n
}

// Strict decoding catches what kubectl apply --validate=strict would refuse: an unknown field, a duplicate key,
// a field in the wrong case.
func TestK8sStrictDecodingRefusesMistakes(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown field":  "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {completion: 3}\n",
		"duplicate key":  "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {completions: 3, completions: 4}\n",
		"wrong case":     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {CompletionMode: Indexed}\n",
		"nested unknown": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, label: {a: b}}\n",
		"unknown kind":   "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n",
	} {
		if _, err := decodeObject([]byte(doc)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	docs, err := splitYAML([]byte("# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"))
	if err != nil || len(docs) != 2 {
		t.Fatalf("split: %d documents, %v", len(docs), err)
	}
	if _, err := decodeObject(docs[1]); err != nil {
		t.Fatal(err)
	}
}

// The manifests decode strictly and agree with each other: Indexed mode with completions = the N of
// --shard k8s/N, parallelism ≤ completions, per-index retries, the Secret and ConfigMap references, the shared
// volume, resources sized from BENCHMARKS.md, and the kustomization listing what exists.
func TestK8sManifestsConsistent(t *testing.T) {
	s := loadK8s(t)
	sh := s.shards.Spec
	if sh.CompletionMode == nil || *sh.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("shards job: completionMode %v, want Indexed", deref(sh.CompletionMode))
	}
	c := s.shards.Spec.Template.Spec.Containers
	if len(c) != 1 {
		t.Fatalf("shards job: %d containers, want 1", len(c))
	}
	n := shardFlag(t, c[0])
	if sh.Completions == nil || int(*sh.Completions) != n {
		t.Errorf("shards job: completions %v, --shard k8s/%d", deref(sh.Completions), n)
	}
	if sh.Parallelism == nil || *sh.Parallelism < 1 || sh.Completions != nil && *sh.Parallelism > *sh.Completions {
		t.Errorf("shards job: parallelism %v must be in 1..completions", deref(sh.Parallelism))
	}
	if sh.BackoffLimitPerIndex == nil || *sh.BackoffLimitPerIndex < 1 {
		t.Errorf("shards job: backoffLimitPerIndex %v, want ≥ 1 (each shard retried on its own)", deref(sh.BackoffLimitPerIndex))
	}
	failsIndexOn2 := false
	if sh.PodFailurePolicy != nil {
		for _, r := range sh.PodFailurePolicy.Rules {
			if r.Action == batchv1.PodFailurePolicyActionFailIndex && r.OnExitCodes != nil &&
				r.OnExitCodes.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && slices.Contains(r.OnExitCodes.Values, exitUsage) {
				failsIndexOn2 = true
			}
		}
	}
	if !failsIndexOn2 {
		t.Error("shards job: no podFailurePolicy rule FailIndex on exit 2 (a usage or config error is not retried)")
	}
	for _, j := range []*batchv1.Job{s.shards, s.merge} {
		if p := j.Spec.PodReplacementPolicy; p == nil || *p != batchv1.Failed {
			t.Errorf("%s: podReplacementPolicy %v, want Failed (never two pods on one run directory)", j.Name, deref(p))
		}
	}

	// Every Job: restartPolicy Never, the image of the kustomization, resources, references that resolve.
	if len(s.kust.Images) != 1 {
		t.Fatalf("kustomization: %d images, want 1", len(s.kust.Images))
	}
	image := s.kust.Images[0].Name
	for _, j := range s.allJobs {
		ps := j.Spec.Template.Spec
		if ps.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %q, want Never", j.Name, ps.RestartPolicy)
		}
		vols := map[string]corev1.Volume{}
		for _, v := range ps.Volumes {
			vols[v.Name] = v
		}
		for _, c := range ps.Containers {
			if c.Image != image {
				t.Errorf("%s/%s: image %q, not the kustomization's %q", j.Name, c.Name, c.Image, image)
			}
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				if _, ok := c.Resources.Requests[r]; !ok {
					t.Errorf("%s/%s: no %s request", j.Name, c.Name, r)
				}
				if _, ok := c.Resources.Limits[r]; !ok {
					t.Errorf("%s/%s: no %s limit", j.Name, c.Name, r)
				}
			}
			for _, m := range c.VolumeMounts {
				v, ok := vols[m.Name]
				if !ok {
					t.Errorf("%s/%s: mount %q has no volume", j.Name, c.Name, m.Name)
					continue
				}
				if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != s.pvc.Name {
					t.Errorf("%s: volume %q is not the claim %s", j.Name, v.Name, s.pvc.Name)
				}
			}
			for _, e := range c.EnvFrom {
				if e.ConfigMapRef == nil || e.ConfigMapRef.Name != s.config.Name {
					t.Errorf("%s/%s: envFrom %+v is not the ConfigMap %s", j.Name, c.Name, e, s.config.Name)
				}
			}
			for _, e := range c.Env {
				if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					continue
				}
				ref := e.ValueFrom.SecretKeyRef
				_, inString := s.secret.StringData[ref.Key]
				_, inData := s.secret.Data[ref.Key]
				if ref.Name != s.secret.Name || !inString && !inData {
					t.Errorf("%s/%s: env %s from secret %s key %s: secret.example.yaml is %s with keys %v", j.Name, c.Name,
						e.Name, ref.Name, ref.Key, s.secret.Name, s.secret.StringData)
				}
				if ref.Optional == nil || !*ref.Optional {
					t.Errorf("%s/%s: the secret reference must be optional (scripted runs have no Secret)", j.Name, c.Name)
				}
			}
		}
	}
	// The Secret is an example: a placeholder, never a key.
	for k, v := range s.secret.StringData {
		if !strings.HasPrefix(v, "REPLACE_") {
			t.Errorf("secret.example.yaml: %s holds %q, want a REPLACE_… placeholder", k, v)
		}
	}
	if len(s.secret.Data) > 0 {
		t.Error("secret.example.yaml: data set; keep only the stringData placeholder")
	}

	// The shared volume: ReadWriteMany, mounted where $RUNS says, by the shards and the merge alike.
	if !slices.Contains(s.pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("pvc: access modes %v, want ReadWriteMany (pods on several nodes)", s.pvc.Spec.AccessModes)
	}
	for _, j := range []*batchv1.Job{s.shards, s.merge} {
		c := j.Spec.Template.Spec.Containers[0]
		runs := envValue(c, "RUNS")
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != runs || runs == "" {
			t.Errorf("%s: RUNS=%q, mounts %+v: want the claim mounted at $RUNS", j.Name, runs, c.VolumeMounts)
		}
		if c.VolumeMounts[0].ReadOnly {
			t.Errorf("%s: the runs volume is mounted read-only", j.Name)
		}
	}
	for _, k := range []string{"SPEC", "RUN", "MODEL", "BASE_URL", "REPS"} {
		if _, ok := s.config.Data[k]; !ok {
			t.Errorf("config.yaml: no %s", k)
		}
	}
	if m := s.config.Data["MODEL"]; m != "" && !strings.HasPrefix(m, "scripted") {
		t.Errorf("config.yaml: MODEL %q: the shipped default is the offline scripted policy", m)
	}
	if _, err := os.Stat(filepath.Join("../..", s.config.Data["SPEC"])); err != nil {
		t.Errorf("config.yaml: SPEC: %v", err)
	}

	// Resources: the shard pod's memory request covers `make bench`'s all-browsers peak at the spec's workers.
	spec, err := os.ReadFile(filepath.Join("../..", s.config.Data["SPEC"]))
	if err != nil {
		t.Fatal(err)
	}
	wm := regexp.MustCompile(`(?m)^workers:\s*(\d+)`).FindSubmatch(spec)
	if wm == nil {
		t.Fatalf("%s: no workers", s.config.Data["SPEC"])
	}
	peak := benchAllPeak(t, string(wm[1]))
	req := s.shards.Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]
	lim := s.shards.Spec.Template.Spec.Containers[0].Resources.Limits[corev1.ResourceMemory]
	if req.Cmp(peak) < 0 || lim.Cmp(req) < 0 {
		t.Errorf("shards job: memory request %s / limit %s, BENCHMARKS.md all-peak at %s workers %s", req.String(),
			lim.String(), wm[1], peak.String())
	}

	// The kustomization lists every manifest but the Secret example, and nothing else.
	var want []string
	for name := range s.files {
		if name != "secret.example.yaml" {
			want = append(want, name)
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(s.kust.Resources))
	if s.kust.APIVersion != "kustomize.config.k8s.io/v1beta1" || s.kust.Kind != "Kustomization" || !slices.Equal(got, want) {
		t.Errorf("kustomization: %s %s resources %v, want %v", s.kust.APIVersion, s.kust.Kind, got, want)
	}
	if s.merge.Spec.Suspend == nil || !*s.merge.Spec.Suspend {
		t.Error("merge job: created by the same apply, it must start suspended (resumed when the shards are done)")
	}

	// Where kubectl is installed, its kustomize renders the folder, and the result decodes strictly too.
	if kc, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kc, "kustomize", k8sDir).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize: %v", err)
		}
		docs, err := splitYAML(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if _, err := decodeObject(d); err != nil {
				t.Errorf("kubectl kustomize output: %v", err)
			}
		}
		if len(docs) != len(want) {
			t.Errorf("kubectl kustomize: %d objects, want %d", len(docs), len(want))
		}
	}
}

// deref is *p, or "unset" for nil, for messages.
func deref[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// envValue is the literal value of the container's env entry name ("" when absent or not literal).
func envValue(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// benchAllPeak reads the "all peak" memory figure of the throughput table's workers row from BENCHMARKS.md.
func benchAllPeak(t *testing.T, workers string) resource.Quantity {
	t.Helper()
	b, err := os.ReadFile("../../BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\| ` + workers + ` worker\(s\): PSS/worker median · peak · all peak \| [^|]*· ([0-9.]+) (MiB|GiB) \|`)
	m := re.FindSubmatch(b)
	if m == nil {
		t.Fatalf("BENCHMARKS.md: no %s-worker PSS row", workers)
	}
	q, err := resource.ParseQuantity(string(m[1]) + strings.TrimSuffix(string(m[2]), "B"))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// expandK8s expands $(NAME) references in s as the kubelet does in a container's command, args and env values:
// a defined NAME is replaced by its value, an undefined one is left as written, and $$ is a literal $.
func expandK8s(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+3+end])
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

func TestExpandK8s(t *testing.T) {
	env := map[string]string{"A": "x", "B": "y"}
	for in, want := range map[string]string{
		"$(A)/$(B)": "x/y", "$$(A)": "$(A)", "$(C)": "$(C)", "$A ${B}": "$A ${B}", "a$": "a$", "$(A": "$(A",
	} {
		if got := expandK8s(in, env); got != want {
			t.Errorf("expand %q = %q, want %q", in, got, want)
		}
	}
}

// podProcess builds the process a pod of job would run here: the container's command and args from the
// decoded manifest, its environment as the kubelet builds it (envFrom the ConfigMap, env values with $(VAR)
// expanded; an optional Secret that does not exist sets nothing), over this process's environment, and then
// the substitutions subst (named variables replaced; each is logged), expanded as the kubelet expands them.
// The container's working directory is the repository root (the image's /opt/webbench holds its suites/).
func podProcess(t *testing.T, s *k8sSet, job *batchv1.Job, subst map[string]string) *exec.Cmd {
	t.Helper()
	c := job.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	delete(env, "JOB_COMPLETION_INDEX")
	delete(env, "OPENAI_API_KEY")
	for _, e := range c.EnvFrom {
		for k, v := range s.config.Data { // the reference was checked by TestK8sManifestsConsistent
			env[e.Prefix+k] = v
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = expandK8s(e.Value, env)
		case e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Optional != nil && *e.ValueFrom.SecretKeyRef.Optional:
			delete(env, e.Name) // no Secret here: an optional reference leaves the variable unset
		default:
			t.Fatalf("%s: env %s: a source this test cannot provide", job.Name, e.Name)
		}
	}
	var log []string
	for _, k := range slices.Sorted(maps.Keys(subst)) {
		if k == "PATH" {
			log = append(log, "PATH=<bench binary's folder>:$PATH")
		} else {
			log = append(log, fmt.Sprintf("%s=%q (was %q)", k, subst[k], env[k]))
		}
		env[k] = subst[k]
	}
	t.Logf("%s pod, substituted: %s", job.Name, strings.Join(log, ", "))
	argv := append(slices.Clone(c.Command), c.Args...)
	for i := range argv {
		argv[i] = expandK8s(argv[i], env)
	}
	if len(argv) == 0 {
		t.Fatalf("%s: no command", job.Name)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = "../.."
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// runPod runs cmd and fails the test unless it exits want; it returns the process's stdout and stderr.
func runPod(t *testing.T, name string, cmd *exec.Cmd, want int) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Minute // a process left behind holding the pipes must not hang the test
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if code != want {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, want, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

// visualProgressTargets are the Zoo tasks tagged visual_progress: with the guard off, the scripted policy's
// `observed` profile stalls on every one of them (BENCHMARKS.md; nightly.yaml: 24/24 → 0/24), and with it on
// passes them all — deterministic outcomes that differ between the arms.
var visualProgressTargets = []string{"planner-mobile-android-automated-plan-switch-on",
	"planner-mobile-mixed-plan-switch-on", "planner-payments-firefox-plan-switch-on",
	"planner-storefront-manual-plan-described", "planner-storefront-plan-switch-off",
	"planner-storefront-safari-plan-switch-off"}

// gateSpec writes an ablation spec over tasks (1 rep): the baseline under `observed`, one variant with
// visual_progress off, and fail_if_worse 0.05.
func gateSpec(t *testing.T, dir string, tasks []string) string {
	t.Helper()
	p, err := writeGateSpec(dir, tasks)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeGateSpec is gateSpec for the shared fixtures: it returns the spec's path.
func writeGateSpec(dir string, tasks []string) (string, error) {
	p := filepath.Join(dir, "spec.yaml")
	return p, os.WriteFile(p, []byte(fmt.Sprintf(`name: k8s-gate
suite: zoo
tasks: %q
reps: 1
workers: 2
seed: 7
fail_if_worse: 0.05
baseline:
  model: {kind: scripted, profile: observed}
variants:
  - {name: no_visual_progress, guards: {visual_progress: false}}
`, strings.Join(tasks, ","))), 0o644)
}

// runK8sPods runs the shards Job's command for JOB_COMPLETION_INDEX = 0..N-1 (each must exit 0: a gate failing
// on a shard's share is not the pod's failure) and then the merge Job's, which must exit mergeWant, with the
// shared volume a temporary folder and the spec spec. It returns the run's folder on the volume and the merge
// pod's stdout and stderr.
func runK8sPods(t *testing.T, s *k8sSet, spec string, mergeWant int) (run, stdout, stderr string) {
	t.Helper()
	n := int(*s.shards.Spec.Completions)
	volume := filepath.Join(t.TempDir(), "volume")
	if err := os.Mkdir(volume, 0o755); err != nil {
		t.Fatal(err)
	}
	// The substitutions, and nothing else: the volume's mount path, the spec, the image's PATH (bin/bench).
	base := map[string]string{"RUNS": volume, "SPEC": spec, "PATH": filepath.Dir(benchBin) + ":" + os.Getenv("PATH")}
	for i := range n {
		runPod(t, fmt.Sprintf("shard pod %d", i), podProcess(t, s, s.shards, with(base, "JOB_COMPLETION_INDEX", strconv.Itoa(i))), 0)
	}
	run = filepath.Join(volume, s.config.Data["RUN"])
	for i := range n {
		d := filepath.Join(run, fmt.Sprintf("shard-%d", i))
		r, err := results.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%d/%d", i+1, n); r.Manifest.Shard != want {
			t.Errorf("%s: shard %q, want %s", d, r.Manifest.Shard, want)
		}
	}
	stdout, stderr = runPod(t, "merge pod", podProcess(t, s, s.merge, base), mergeWant)
	merged := filepath.Join(run, "merged")
	for _, f := range []string{"report.md", "report.json", "report.html"} {
		if st, err := os.Stat(filepath.Join(merged, f)); err != nil || st.Size() == 0 {
			t.Errorf("merge pod wrote no %s: %v", f, err)
		}
	}
	return run, stdout, stderr
}

// The pods' own commands, run here: the shards Job's command for JOB_COMPLETION_INDEX = 0..N-1 with the
// shared volume a temporary folder and a small spec of mixed outcomes (visual_progress off stalls on its target
// tasks under `observed`, on it passes them), then the merge Job's command; the merged run equals an unsharded
// `bench ablate` of the same spec, attempt for attempt and in its report. On 3 tasks the exact sign-flip p is
// 2/2^3 = 0.25: the spec's fail_if_worse gate cannot fail, so the merge pod exits 0 and says the gate passed.
// The unsharded run is the package's shared one of that spec (gateWhole).
//
// The shards are also the package's same-seed re-run of an ablation: the same spec run again with the same
// seeds (three processes, other workers beside each attempt) must give identical attempts and identical
// statistics (ablationStats: counts, rates, intervals, Δ, p-values, failure modes), so no separate second
// unsharded run is made for that.
func TestK8sPodsCommandsMergedEqualUnsharded(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s := loadK8s(t)
	n := int(*s.shards.Spec.Completions)
	g := shared(t, gateWhole) // 3 pairs: one on each shard
	run, log, _ := runK8sPods(t, s, g.spec, 0)
	if !strings.Contains(log, "no_visual_progress") {
		t.Errorf("merge pod's log has no report:\n%s", log)
	}
	if !strings.Contains(unwrap(log), "Gate (fail if worse by more than 5.0 pts with the interval below 0 and p_holm below alpha): passed: no variant is shown worse.") {
		t.Errorf("merge pod's log (the report) does not say the gate passed:\n%s", log)
	}
	for i := range n {
		r, err := results.Open(filepath.Join(run, fmt.Sprintf("shard-%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.Final()); got != 2 {
			t.Errorf("shard %d ran %d attempts, want 2 (one pair on each shard)", i, got)
		}
	}
	merged := filepath.Join(run, "merged")
	whole := g.dir
	if passed := checkMergedEqualsWhole(t, whole, merged, n, 6, true); passed != 3 {
		t.Errorf("%d of 6 attempts passed, want 3 (the baseline's): the outcomes are not the mixed ones this test needs", passed)
	}
	wantJSON, _, code := bench(t, "report", whole, "--format", "json")
	if code != 0 {
		t.Fatal("report of the unsharded run failed")
	}
	gotJSON, err := os.ReadFile(filepath.Join(merged, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := ablationStats(t, wantJSON), ablationStats(t, string(gotJSON)); a != b {
		t.Errorf("merged report differs from the unsharded one:\nunsharded %s\nmerged    %s", a, b)
	}
	if !strings.Contains(ablationStats(t, wantJSON), "name=no_visual_progress;n=3;passes=0;") {
		t.Errorf("unexpected stats: %s", ablationStats(t, wantJSON))
	}
}

// The merged run is gated: with visual_progress off on all 6 of its target tasks the exact p is 2/2^6 = 0.031
// < 0.05 and Δ = −100 pts, so the spec's fail_if_worse 0.05 fails on the merged run. No shard's share holds
// enough tasks to fail on its own (every shard pod exits 0); the merge pod's `bench report --gate` exits 1 with
// the message bench ablate prints, which the merge Job's podFailurePolicy turns into a failed Job.
func TestK8sMergePodGateFails(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	t.Parallel()
	s := loadK8s(t)
	failsJob := false
	for _, r := range s.merge.Spec.PodFailurePolicy.Rules {
		if r.Action == batchv1.PodFailurePolicyActionFailJob && r.OnExitCodes != nil && slices.Contains(r.OnExitCodes.Values, exitGate) {
			failsJob = true
		}
	}
	if !failsJob {
		t.Error("merge job: no podFailurePolicy rule FailJob on exit 1 (the gate's verdict is not retried)")
	}
	spec := gateSpec(t, t.TempDir(), visualProgressTargets)
	_, log, stderr := runK8sPods(t, s, spec, exitGate)
	for _, want := range []string{
		"FAILED. variant no_visual_progress is worse than baseline: Δ = -100.0 pts",
		"p_holm = 0.0312 is below 0.05",
	} {
		if !strings.Contains(unwrap(log), want) {
			t.Errorf("merge pod's log (the report's gate line) lacks %q:\n%s", want, log)
		}
	}
	if want := "bench: --fail-if-worse 0.050: a variant is worse than the baseline"; !strings.Contains(stderr, want) {
		t.Errorf("merge pod's stderr lacks %q:\n%s", want, stderr)
	}
}

// The pods' scripts, with a stand-in bench on the PATH (a shell script that records its arguments, exits with
// the code it is told, or waits for SIGTERM): the shards script maps exit 1 to 0 and passes every other code
// on; both scripts, as the container's PID 1 would, pass SIGTERM on to the bench they are running and exit
// with its code (130), not the shell's own.
func TestK8sPodScriptsExitCodesAndSigterm(t *testing.T) {
	s := loadK8s(t)
	bin := t.TempDir()
	fake := `#!/bin/sh
echo "$*" >> "$FAKE_DIR/calls"
if [ "$FAKE_CODE" = wait ]; then
  trap 'echo terminated >> "$FAKE_DIR/calls"; exit 130' TERM
  : > "$FAKE_DIR/started"
  i=0
  while [ "$i" -lt 300 ]; do sleep 0.2; i=$((i + 1)); done # bounded: a lost signal fails the test, never hangs it
  exit 99
fi
exit "$FAKE_CODE"
`
	if err := os.WriteFile(filepath.Join(bin, "bench"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(code string) map[string]string {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "volume", s.config.Data["RUN"], "shard-0"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "volume", s.config.Data["RUN"], "merged"), 0o755); err != nil {
			t.Fatal(err)
		}
		return map[string]string{"PATH": bin + ":" + os.Getenv("PATH"), "FAKE_CODE": code, "FAKE_DIR": dir,
			"RUNS": filepath.Join(dir, "volume"), "JOB_COMPLETION_INDEX": "0"}
	}
	for code, want := range map[string]int{"0": 0, "1": 0, "2": 2, "3": 3, "130": 130} {
		runPod(t, "shard pod, bench exits "+code, podProcess(t, s, s.shards, env(code)), want)
	}
	for code, want := range map[string]int{"0": 0, "1": 1, "2": 2, "3": 3} {
		e := env(code)
		runPod(t, "merge pod, bench exits "+code, podProcess(t, s, s.merge, e), want)
		calls, _ := os.ReadFile(filepath.Join(e["FAKE_DIR"], "calls"))
		// Every step runs while they succeed; the first that fails ends the pod with its code.
		wantCalls := 5
		if code != "0" {
			wantCalls = 1
		}
		if got := strings.Count(string(calls), "\n"); got != wantCalls || !strings.HasPrefix(string(calls), "merge --out ") {
			t.Errorf("merge pod, bench exits %s: calls\n%s", code, calls)
		}
		if code == "0" && !strings.HasSuffix(string(calls), "/merged --gate\n") {
			t.Errorf("merge pod: the last step is not bench report --gate:\n%s", calls)
		}
	}
	for _, job := range []*batchv1.Job{s.shards, s.merge} {
		e := env("wait")
		cmd := podProcess(t, s, job, e)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		cmd.WaitDelay = 10 * time.Second // a stand-in left running must not hold the test on its stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		started := filepath.Join(e["FAKE_DIR"], "started")
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(started); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%s: the stand-in bench did not start\n%s", job.Name, errb.String())
			}
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		calls, _ := os.ReadFile(filepath.Join(e["FAKE_DIR"], "calls"))
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupt || !strings.HasSuffix(string(calls), "terminated\n") {
			t.Errorf("%s: SIGTERM to the shell: %v (want exit %d, bench terminated); calls:\n%s\nstderr:\n%s", job.Name, err,
				exitInterrupt, calls, errb.String())
		}
	}
}

// A shard pod asked for a real model without the Secret stops at once with exit 2 (which the Job's
// podFailurePolicy turns into a failed index, not a retry), naming the Secret.
func TestK8sShardPodRefusesRealModelWithoutKey(t *testing.T) {
	s := loadK8s(t)
	cmd := podProcess(t, s, s.shards, map[string]string{"MODEL": "openai:gpt-4o-mini", "JOB_COMPLETION_INDEX": "0",
		"RUNS": t.TempDir(), "PATH": filepath.Dir(benchBin) + ":" + os.Getenv("PATH")})
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage || !strings.Contains(errb.String(), "webbench-model") {
		t.Fatalf("exit %v, stderr %s", err, errb.String())
	}
}

// with returns a copy of m with k set to v.
func with(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for kk, vv := range m {
		if kk != k {
			out[kk] = vv
		}
	}
	return out
}

// The image recipe installs what the Makefile installs: it runs the repository's own `make setup` (so the
// playwright-core version is the Makefile's PLAYWRIGHT_CORE_VERSION and Chromium is Debian's, at the Makefile's
// CHROMIUM path), on a Debian whose Node.js the driver accepts, with the Go of go.mod, and the layout the
// manifests assume. The image itself is not built here (no container daemon, no registry).
func TestDockerfileMatchesMakefile(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	mkVar := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `\s*[:?]?=\s*(\S+)\s*$`).FindSubmatch(mk)
		if m == nil {
			t.Fatalf("Makefile: no %s", name)
		}
		return string(m[1])
	}
	pwVersion, chromium, driverDir := mkVar("PLAYWRIGHT_CORE_VERSION"), mkVar("CHROMIUM"), mkVar("DRIVER_DIR")

	df, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	// Every version of playwright-core the Dockerfile names (comments included) is the Makefile's.
	for _, m := range regexp.MustCompile(`playwright-core[@ ]v?(\d+\.\d+\.\d+)`).FindAllSubmatch(df, -1) {
		if string(m[1]) != pwVersion {
			t.Errorf("Dockerfile names playwright-core %s, the Makefile installs %s", m[1], pwVersion)
		}
	}
	if regexp.MustCompile(`PLAYWRIGHT_CORE_VERSION|npm install|playwright-core@`).Match(stripComments(df)) {
		t.Error("Dockerfile sets the driver's version or installs it itself; it must leave both to `make setup`")
	}

	type stage struct {
		from  string
		instr []string // "RUN …", "ENV …", … with continuation lines joined
	}
	var stages []stage
	for _, in := range dockerInstructions(df) {
		if strings.HasPrefix(in, "FROM ") {
			stages = append(stages, stage{from: strings.Fields(in)[1]})
			continue
		}
		if len(stages) == 0 {
			t.Fatalf("Dockerfile: %q before FROM", in)
		}
		stages[len(stages)-1].instr = append(stages[len(stages)-1].instr, in)
	}
	if len(stages) != 2 {
		t.Fatalf("Dockerfile: %d stages, want build and runtime", len(stages))
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	gov := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if gov == nil || !strings.HasPrefix(stages[0].from, "golang:"+string(gov[1])+"-") {
		t.Errorf("build stage FROM %s, go.mod says go %s", stages[0].from, gov[1])
	}
	// Debian releases and their nodejs major version (https://packages.debian.org/src:nodejs: bookworm 18.20,
	// trixie 20.19); playwright-core 1.64.1's engines say node >= 20.
	nodeOf := map[string]int{"bookworm": 18, "trixie": 20}
	rt := stages[1]
	codename, ok := strings.CutPrefix(rt.from, "debian:")
	codename, _, _ = strings.Cut(codename, "-")
	if !ok || nodeOf[codename] == 0 {
		t.Fatalf("runtime stage FROM %s: want debian:<release> (one of %v)", rt.from, nodeOf)
	}
	if !strings.HasPrefix(stages[0].from, "golang:"+string(gov[1])+"-"+codename) {
		t.Errorf("build stage %s and runtime %s are different Debian releases", stages[0].from, rt.from)
	}
	if pkg, err := os.ReadFile("../../.cache/driver/node_modules/playwright-core/package.json"); err == nil {
		var p struct {
			Version string            `json:"version"`
			Engines map[string]string `json:"engines"`
		}
		if err := json.Unmarshal(pkg, &p); err != nil {
			t.Fatal(err)
		}
		need, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(p.Engines["node"], ".", 2)[0], ">="))
		if p.Version == pwVersion && nodeOf[codename] < need {
			t.Errorf("Debian %s ships Node.js %d; playwright-core %s needs %s", codename, nodeOf[codename], p.Version, p.Engines["node"])
		}
	}
	var workdir string
	var setup, copiedMakefile, copiedSpecs bool
	env := map[string]string{}
	uid := ""
	for _, in := range rt.instr {
		switch {
		case strings.HasPrefix(in, "WORKDIR "):
			workdir = strings.TrimSpace(strings.TrimPrefix(in, "WORKDIR "))
		case strings.HasPrefix(in, "COPY Makefile"):
			copiedMakefile = true
		case strings.HasPrefix(in, "COPY suites/zoo/ablations/"):
			copiedSpecs = true
		case strings.HasPrefix(in, "RUN "):
			if m := regexp.MustCompile(`(?:^|&&\s*)make setup((?:\s+[^&\s]+)*)`).FindStringSubmatch(strings.TrimPrefix(in, "RUN ")); m != nil {
				setup = copiedMakefile && workdir != ""
				if strings.Contains(m[1], "=") {
					t.Errorf("Dockerfile: %q overrides a Makefile variable", in)
				}
			}
			if m := regexp.MustCompile(`useradd --uid (\d+)`).FindStringSubmatch(in); m != nil {
				uid = m[1]
			}
		case strings.HasPrefix(in, "ENV "):
			for _, kv := range strings.Fields(strings.TrimPrefix(in, "ENV ")) {
				if k, v, ok := strings.Cut(kv, "="); ok {
					env[k] = v
				}
			}
		}
	}
	if !setup {
		t.Error("runtime stage: no `RUN make setup` after `COPY Makefile` in a WORKDIR")
	}
	if !copiedSpecs {
		t.Error("runtime stage: the specs (suites/zoo/ablations/) are not copied")
	}
	if env["WEBBENCH_CHROMIUM"] != chromium {
		t.Errorf("ENV WEBBENCH_CHROMIUM=%q, the Makefile's CHROMIUM is %s", env["WEBBENCH_CHROMIUM"], chromium)
	}
	if env["WEBBENCH_DRIVER_DIR"] != workdir+"/"+driverDir {
		t.Errorf("ENV WEBBENCH_DRIVER_DIR=%q, make setup installs into %s/%s", env["WEBBENCH_DRIVER_DIR"], workdir, driverDir)
	}
	// The manifests run in that layout, as that user.
	s := loadK8s(t)
	for _, j := range s.allJobs {
		ps := j.Spec.Template.Spec
		if ps.SecurityContext == nil || ps.SecurityContext.RunAsUser == nil || strconv.FormatInt(*ps.SecurityContext.RunAsUser, 10) != uid {
			t.Errorf("%s: runAsUser is not the image's user %s", j.Name, uid)
		}
		if c := ps.Containers[0]; c.WorkingDir != "" && c.WorkingDir != workdir {
			t.Errorf("%s: workingDir %s, the image's is %s", j.Name, c.WorkingDir, workdir)
		}
	}
}

// dockerInstructions returns the Dockerfile's instructions, comments dropped and continuation lines joined.
func dockerInstructions(df []byte) []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.Split(string(df), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if cont, ok := strings.CutSuffix(l, "\\"); ok {
			cur.WriteString(strings.TrimSpace(cont) + " ")
			continue
		}
		cur.WriteString(l)
		out = append(out, cur.String())
		cur.Reset()
	}
	return out
}

// stripComments drops a Dockerfile's comment lines.
func stripComments(df []byte) []byte {
	return []byte(strings.Join(dockerInstructions(df), "\n"))
}
