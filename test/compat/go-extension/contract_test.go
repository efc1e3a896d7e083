// The wire contract between this project and upstream's Go types, both ways: the project's hook fixtures
// (libs/api/src/hooks/fixtures) decode strictly into upstream's request/response types, and responses built by
// upstream's types are written to $GO_EXTENSION_CONTRACT_OUT for the TypeScript side to parse
// (tools/go-extension/go-test.process.spec.ts).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

const fixturesDir = "../../../libs/api/src/hooks/fixtures"

// Every fixture file and the upstream type it is a wire form of.
var fixtureTypes = map[string]func() runtime.Object{
	"discovery-request":                 func() runtime.Object { return &runtimehooksv1.DiscoveryRequest{} },
	"discovery-response":                func() runtime.Object { return &runtimehooksv1.DiscoveryResponse{} },
	"canupdatemachine-request":          func() runtime.Object { return &runtimehooksv1.CanUpdateMachineRequest{} },
	"canupdatemachine-response":         func() runtime.Object { return &runtimehooksv1.CanUpdateMachineResponse{} },
	"canupdatemachineset-request":       func() runtime.Object { return &runtimehooksv1.CanUpdateMachineSetRequest{} },
	"canupdatemachineset-response":      func() runtime.Object { return &runtimehooksv1.CanUpdateMachineSetResponse{} },
	"updatemachine-request":             func() runtime.Object { return &runtimehooksv1.UpdateMachineRequest{} },
	"updatemachine-response-done":       func() runtime.Object { return &runtimehooksv1.UpdateMachineResponse{} },
	"updatemachine-response-failure":    func() runtime.Object { return &runtimehooksv1.UpdateMachineResponse{} },
	"updatemachine-response-inprogress": func() runtime.Object { return &runtimehooksv1.UpdateMachineResponse{} },
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixturesDir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodeFixture[T runtime.Object](t *testing.T, name string) T {
	t.Helper()
	obj := fixtureTypes[name]().(T)
	if err := DecodeStrict(readFixture(t, name), obj); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return obj
}

func TestEveryFixtureHasAnUpstreamType(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixturesDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s (%v)", fixturesDir, err)
	}
	var names []string
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		names = append(names, name)
		if fixtureTypes[name] == nil {
			t.Errorf("fixture %s has no upstream type in fixtureTypes: add it", name)
		}
	}
	sort.Strings(names)
	if len(names) != len(fixtureTypes) {
		t.Errorf("fixtures %v, types for %d", names, len(fixtureTypes))
	}
}

func TestFixturesDecodeStrictlyIntoUpstreamTypes(t *testing.T) {
	for name, newObj := range fixtureTypes {
		t.Run(name, func(t *testing.T) {
			obj := newObj()
			if err := DecodeStrict(readFixture(t, name), obj); err != nil {
				t.Fatal(err)
			}
			// apiVersion and kind name the upstream type the fixture was decoded into.
			gvk := obj.GetObjectKind().GroupVersionKind()
			want := strings.TrimPrefix(reflectTypeName(obj), "*v1alpha1.")
			if gvk.GroupVersion() != runtimehooksv1.GroupVersion || gvk.Kind != want {
				t.Errorf("apiVersion/kind %s, want %s %s", gvk, runtimehooksv1.GroupVersion, want)
			}
		})
	}
}

func TestFixtureValuesAsUpstreamReadsThem(t *testing.T) {
	req := decodeFixture[*runtimehooksv1.CanUpdateMachineRequest](t, "canupdatemachine-request")
	if req.Current.Machine.Spec.Version != "v1.30.0" || req.Desired.Machine.Spec.Version != "v1.31.0" {
		t.Errorf("versions %q -> %q", req.Current.Machine.Spec.Version, req.Desired.Machine.Spec.Version)
	}
	if req.Settings["k"] != "v" || req.Desired.Machine.Spec.FailureDomain != "fd1" {
		t.Errorf("settings %v, failureDomain %q", req.Settings, req.Desired.Machine.Spec.FailureDomain)
	}
	if req.Desired.Machine.Spec.InfrastructureRef.Kind != "DevMachine" || len(req.Desired.BootstrapConfig.Raw) == 0 {
		t.Errorf("infrastructureRef %+v, bootstrapConfig %q", req.Desired.Machine.Spec.InfrastructureRef, req.Desired.BootstrapConfig.Raw)
	}

	resp := decodeFixture[*runtimehooksv1.CanUpdateMachineResponse](t, "canupdatemachine-response")
	if resp.Status != runtimehooksv1.ResponseStatusSuccess || resp.MachinePatch.PatchType != runtimehooksv1.JSONPatchType {
		t.Errorf("status %q, machinePatch type %q", resp.Status, resp.MachinePatch.PatchType)
	}
	// Patch bytes are base64 on the wire ([]byte): decoded, they are the JSON documents.
	if got := string(resp.MachinePatch.Patch); got != `[{"op":"replace","path":"/spec/version","value":"v1.31.0"}]` {
		t.Errorf("machinePatch %s", got)
	}
	if resp.BootstrapConfigPatch.PatchType != runtimehooksv1.JSONMergePatchType || !json.Valid(resp.BootstrapConfigPatch.Patch) {
		t.Errorf("bootstrapConfigPatch %+v", resp.BootstrapConfigPatch)
	}

	disc := decodeFixture[*runtimehooksv1.DiscoveryResponse](t, "discovery-response")
	if len(disc.Handlers) != 3 || *disc.Handlers[2].TimeoutSeconds != 10 || *disc.Handlers[2].FailurePolicy != runtimehooksv1.FailurePolicyFail {
		t.Errorf("handlers %+v", disc.Handlers)
	}
	for _, name := range []string{"updatemachine-response-inprogress", "updatemachine-response-done"} {
		r := decodeFixture[*runtimehooksv1.UpdateMachineResponse](t, name)
		if r.Status != runtimehooksv1.ResponseStatusSuccess || (r.RetryAfterSeconds == 0) != strings.HasSuffix(name, "done") {
			t.Errorf("%s: %+v", name, r)
		}
	}
	if r := decodeFixture[*runtimehooksv1.UpdateMachineResponse](t, "updatemachine-response-failure"); r.Status != runtimehooksv1.ResponseStatusFailure {
		t.Errorf("failure fixture status %q", r.Status)
	}
}

// Strict decoding can fail: a field upstream's types do not have, a duplicate field and a wrongly cased one.
func TestStrictDecodingRejectsWhatUpstreamDoesNotHave(t *testing.T) {
	for label, mutate := range map[string]func(string) string{
		"unknown field":   func(s string) string { return strings.Replace(s, `"status":`, `"retryAfter": 5, "status":`, 1) },
		"duplicate field": func(s string) string { return strings.Replace(s, `"status":`, `"message": "x", "status":`, 1) },
		"case mismatch":   func(s string) string { return strings.Replace(s, `"retryAfterSeconds"`, `"RetryAfterSeconds"`, 1) },
	} {
		t.Run(label, func(t *testing.T) {
			data := mutate(string(readFixture(t, "updatemachine-response-inprogress")))
			if err := DecodeStrict([]byte(data), &runtimehooksv1.UpdateMachineResponse{}); err == nil {
				t.Fatalf("decoded %s", data)
			}
		})
	}
	machine := strings.Replace(string(readFixture(t, "updatemachine-request")), `"clusterName": "c1",`, `"clusterName": "c1", "nodeName": "n",`, 1)
	if err := DecodeStrict([]byte(machine), &runtimehooksv1.UpdateMachineRequest{}); err == nil || !strings.Contains(err.Error(), "nodeName") {
		t.Fatalf("a Machine spec field upstream does not have: %v", err)
	}
}

// Responses as upstream's types and this extension's handlers build them, for the TypeScript side to parse.
func TestEncodeUpstreamResponses(t *testing.T) {
	h := NewExtensionHandlers(UpdateTiming{Duration: 0, RetryAfterSeconds: 5}, nil)
	ctx := context.Background()
	out := map[string]runtime.Object{}

	canUpdate := &runtimehooksv1.CanUpdateMachineResponse{}
	h.DoCanUpdateMachine(ctx, decodeFixture[*runtimehooksv1.CanUpdateMachineRequest](t, "canupdatemachine-request"), canUpdate)
	out["canupdatemachine-response"] = canUpdate
	canUpdateSet := &runtimehooksv1.CanUpdateMachineSetResponse{}
	h.DoCanUpdateMachineSet(ctx, decodeFixture[*runtimehooksv1.CanUpdateMachineSetRequest](t, "canupdatemachineset-request"), canUpdateSet)
	out["canupdatemachineset-response"] = canUpdateSet
	updateReq := decodeFixture[*runtimehooksv1.UpdateMachineRequest](t, "updatemachine-request")
	inProgress := &runtimehooksv1.UpdateMachineResponse{}
	h.DoUpdateMachine(ctx, updateReq, inProgress)
	out["updatemachine-response-inprogress"] = inProgress
	done := &runtimehooksv1.UpdateMachineResponse{}
	h.DoUpdateMachine(ctx, updateReq, done)
	out["updatemachine-response-done"] = done
	out["discovery-response"] = &runtimehooksv1.DiscoveryResponse{
		CommonResponse: runtimehooksv1.CommonResponse{Status: runtimehooksv1.ResponseStatusSuccess},
		Handlers: []runtimehooksv1.ExtensionHandler{{
			Name:           "update-machine",
			RequestHook:    runtimehooksv1.GroupVersionHook{APIVersion: runtimehooksv1.GroupVersion.String(), Hook: "UpdateMachine"},
			TimeoutSeconds: ptr.To[int32](5),
			FailurePolicy:  ptr.To(runtimehooksv1.FailurePolicyIgnore),
		}},
	}

	for name, obj := range out {
		if s := obj.(runtimehooksv1.ResponseObject).GetStatus(); s != runtimehooksv1.ResponseStatusSuccess {
			t.Errorf("%s: status %q (%s)", name, s, obj.(runtimehooksv1.ResponseObject).GetMessage())
		}
	}
	if got := string(canUpdate.MachinePatch.Patch); got != `[{"op":"replace","path":"/spec/version","value":"v1.31.0"}]` {
		t.Errorf("machinePatch %s", got)
	}
	if got := string(canUpdate.BootstrapConfigPatch.Patch); !strings.Contains(got, `"path":"/spec/clusterConfiguration/etcd/local/imageTag","value":"3.5.16-0"`) {
		t.Errorf("bootstrapConfigPatch %s", got)
	}

	dir := os.Getenv("GO_EXTENSION_CONTRACT_OUT")
	if dir == "" {
		t.Log("GO_EXTENSION_CONTRACT_OUT not set: the encoded responses are not written")
		return
	}
	for name, obj := range out {
		// The server sets apiVersion/kind on responses from the catalog; do the same here.
		gvk := runtimehooksv1.GroupVersion.WithKind(strings.TrimPrefix(reflectTypeName(obj), "*v1alpha1."))
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		data, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func reflectTypeName(obj any) string { return fmt.Sprintf("%T", obj) }
