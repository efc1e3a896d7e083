package main

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// A failureDomain and a DevMachine bootstrapTimeout change are declared, as upstream's canUpdateMachineSpec and
// canUpdateDevMachineSpec do; an InMemoryMachine (a kind the scheme does not know) gets an empty patch.
func TestCanUpdateMachineDeclaresFailureDomainAndDevMachineTimeout(t *testing.T) {
	h := NewExtensionHandlers(UpdateTiming{}, nil)
	req := decodeFixture[*runtimehooksv1.CanUpdateMachineRequest](t, "canupdatemachine-request")
	req.Desired.Machine.Spec.FailureDomain = "fd2"
	req.Desired.InfrastructureMachine.Raw = []byte(strings.Replace(string(req.Desired.InfrastructureMachine.Raw), `"3m"`, `"5m"`, 1))
	resp := &runtimehooksv1.CanUpdateMachineResponse{}
	h.DoCanUpdateMachine(context.Background(), req, resp)
	if resp.Status != runtimehooksv1.ResponseStatusSuccess {
		t.Fatalf("%s: %s", resp.Status, resp.Message)
	}
	// jsonpatch.CreatePatch walks maps: the order of the operations varies.
	var ops []map[string]any
	if err := json.Unmarshal(resp.MachinePatch.Patch, &ops); err != nil {
		t.Fatal(err)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i]["path"].(string) < ops[j]["path"].(string) })
	want := []map[string]any{
		{"op": "replace", "path": "/spec/failureDomain", "value": "fd2"},
		{"op": "replace", "path": "/spec/version", "value": "v1.31.0"},
	}
	if !reflect.DeepEqual(ops, want) {
		t.Errorf("machinePatch %s", resp.MachinePatch.Patch)
	}
	if got := string(resp.InfrastructureMachinePatch.Patch); got != `[{"op":"replace","path":"/spec/backend/docker/bootstrapTimeout","value":"5m"}]` {
		t.Errorf("infrastructureMachinePatch %s", got)
	}

	inMemory := `{"apiVersion":"infrastructure.cluster.x-k8s.io/v1alpha1","kind":"InMemoryMachine","metadata":{"name":"m"},"spec":{"image":"%s"}}`
	req.Current.InfrastructureMachine.Raw = []byte(strings.Replace(inMemory, "%s", "a", 1))
	req.Desired.InfrastructureMachine.Raw = []byte(strings.Replace(inMemory, "%s", "b", 1))
	resp = &runtimehooksv1.CanUpdateMachineResponse{}
	h.DoCanUpdateMachine(context.Background(), req, resp)
	if resp.Status != runtimehooksv1.ResponseStatusSuccess || string(resp.InfrastructureMachinePatch.Patch) != `[]` {
		t.Errorf("InMemoryMachine: %s %s, patch %s", resp.Status, resp.Message, resp.InfrastructureMachinePatch.Patch)
	}

	req.Current.BootstrapConfig.Raw = []byte(`{"apiVersion":"bootstrap.cluster.x-k8s.io/v1beta2","kind":"KubeadmConfig","spec":{"files":"nope"}}`)
	resp = &runtimehooksv1.CanUpdateMachineResponse{}
	h.DoCanUpdateMachine(context.Background(), req, resp)
	if resp.Status != runtimehooksv1.ResponseStatusFailure || resp.Message == "" {
		t.Errorf("an undecodable KubeadmConfig: %s %q", resp.Status, resp.Message)
	}
}

func TestDisableInPlaceUpdatesSetting(t *testing.T) {
	h := NewExtensionHandlers(UpdateTiming{}, nil)
	req := decodeFixture[*runtimehooksv1.CanUpdateMachineRequest](t, "canupdatemachine-request")
	req.Settings = map[string]string{"disableInPlaceUpdates": "true"}
	resp := &runtimehooksv1.CanUpdateMachineResponse{}
	h.DoCanUpdateMachine(context.Background(), req, resp)
	if resp.Status != runtimehooksv1.ResponseStatusSuccess || resp.MachinePatch.IsDefined() {
		t.Errorf("CanUpdateMachine: %+v", resp)
	}
	update := decodeFixture[*runtimehooksv1.UpdateMachineRequest](t, "updatemachine-request")
	update.Settings = req.Settings
	uresp := &runtimehooksv1.UpdateMachineResponse{}
	h.DoUpdateMachine(context.Background(), update, uresp)
	if uresp.Status != runtimehooksv1.ResponseStatusFailure {
		t.Errorf("UpdateMachine: %+v", uresp)
	}
}

// "In progress" with retryAfterSeconds until the update time has passed since the first call, then completed; the
// next update of the same Machine starts over.
func TestUpdateMachineAnswersRetryUntilDone(t *testing.T) {
	now := time.Unix(1000, 0)
	h := NewExtensionHandlers(UpdateTiming{Duration: 15 * time.Second, Jitter: 5 * time.Second, RetryAfterSeconds: 5,
		Rand: func(n int64) int64 { return n / 2 }}, func() time.Time { return now })
	req := decodeFixture[*runtimehooksv1.UpdateMachineRequest](t, "updatemachine-request")
	call := func() *runtimehooksv1.UpdateMachineResponse {
		resp := &runtimehooksv1.UpdateMachineResponse{}
		h.DoUpdateMachine(context.Background(), req, resp)
		return resp
	}
	for _, step := range []struct {
		after time.Duration
		retry int32
	}{{0, 5}, {10 * time.Second, 5}, {17 * time.Second, 5}, {18 * time.Second, 0}, {18 * time.Second, 5}} {
		now = time.Unix(1000, 0).Add(step.after)
		if r := call(); r.Status != runtimehooksv1.ResponseStatusSuccess || r.RetryAfterSeconds != step.retry {
			t.Errorf("after %s: %+v, want retryAfterSeconds %d", step.after, r, step.retry)
		}
	}
}
