// The in-place update handlers of upstream's test extension (test/extension/handlers/inplaceupdate/handlers.go in
// kubernetes-sigs/cluster-api), written against the same upstream types. Two differences, both forced by what the
// Go module proxy serves: the DevMachine(Template) types live in sigs.k8s.io/cluster-api/test, which is not served
// at v1.14.x, so DevMachine's one in-place field is read from the unstructured object; and infrastructure kinds the
// scheme does not know (this project's InMemoryMachine) are kept as unstructured with no in-place changes declared,
// where upstream's decoder would fail the hook.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"gomodules.xyz/jsonpatch/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"

	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimehooksv1 "sigs.k8s.io/cluster-api/api/runtime/hooks/v1alpha1"
)

// UpdateTiming says how long a faked update takes: upstream's test extension answers "in progress" until
// 15 s + rand(0..5) s have passed since the first UpdateMachine call for a Machine, retrying every 5 s.
type UpdateTiming struct {
	Duration          time.Duration
	Jitter            time.Duration
	RetryAfterSeconds int32
	// Rand returns a value in [0, n); nil uses a fixed 0 (tests).
	Rand func(n int64) int64
}

// ExtensionHandlers holds what the in-place update handlers share.
type ExtensionHandlers struct {
	decoder runtime.Decoder
	timing  UpdateTiming
	now     func() time.Time
	state   sync.Map // "namespace/name" -> time of the first UpdateMachine call
}

// NewExtensionHandlers returns the handlers; `now` nil uses time.Now.
func NewExtensionHandlers(timing UpdateTiming, now func() time.Time) *ExtensionHandlers {
	scheme := runtime.NewScheme()
	_ = bootstrapv1.AddToScheme(scheme)
	_ = controlplanev1.AddToScheme(scheme)
	if now == nil {
		now = time.Now
	}
	return &ExtensionHandlers{
		decoder: serializer.NewCodecFactory(scheme).UniversalDecoder(bootstrapv1.GroupVersion),
		timing:  timing,
		now:     now,
	}
}

// decode returns the typed object for kinds in the scheme and an unstructured one for any other kind.
func (h *ExtensionHandlers) decode(raw runtime.RawExtension) (runtime.Object, error) {
	obj, _, err := h.decoder.Decode(raw.Raw, nil, nil)
	if err == nil {
		return obj, nil
	}
	if !runtime.IsNotRegisteredError(err) {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw.Raw); err != nil {
		return nil, err
	}
	return u, nil
}

// canUpdateMachineSpec declares that this extension can update MachineSpec.FailureDomain and MachineSpec.Version.
func canUpdateMachineSpec(current, desired *clusterv1.MachineSpec) {
	if current.FailureDomain != desired.FailureDomain {
		current.FailureDomain = desired.FailureDomain
	}
	if current.Version != desired.Version {
		current.Version = desired.Version
	}
}

// canUpdateKubeadmConfigSpec declares KubeadmConfigSpec.ClusterConfiguration.Etcd.Local.ImageTag and .Files.
func canUpdateKubeadmConfigSpec(current, desired *bootstrapv1.KubeadmConfigSpec) {
	if current.ClusterConfiguration.Etcd.Local.ImageTag != desired.ClusterConfiguration.Etcd.Local.ImageTag {
		current.ClusterConfiguration.Etcd.Local.ImageTag = desired.ClusterConfiguration.Etcd.Local.ImageTag
	}
	if !reflect.DeepEqual(current.Files, desired.Files) {
		current.Files = desired.Files
	}
}

const devMachineGroup = "infrastructure.cluster.x-k8s.io"

// canUpdateDevMachine declares DevMachineSpec.Backend.Docker.BootstrapTimeout (at `prefix` + backend.docker).
func canUpdateDevMachine(current, desired runtime.Object, kind string, prefix ...string) {
	c, ok1 := current.(*unstructured.Unstructured)
	d, ok2 := desired.(*unstructured.Unstructured)
	if !ok1 || !ok2 || c.GetKind() != kind || d.GetKind() != kind || c.GroupVersionKind().Group != devMachineGroup {
		return
	}
	docker := append(append([]string{}, prefix...), "backend", "docker")
	_, cFound, _ := unstructured.NestedMap(c.Object, docker...)
	_, dFound, _ := unstructured.NestedMap(d.Object, docker...)
	if !cFound || !dFound {
		return
	}
	path := append(docker, "bootstrapTimeout")
	want, found, _ := unstructured.NestedFieldCopy(d.Object, path...)
	if !found {
		unstructured.RemoveNestedField(c.Object, path...)
		return
	}
	_ = unstructured.SetNestedField(c.Object, want, path...)
}

// DoCanUpdateMachine implements the CanUpdateMachine hook.
func (h *ExtensionHandlers) DoCanUpdateMachine(ctx context.Context, req *runtimehooksv1.CanUpdateMachineRequest, resp *runtimehooksv1.CanUpdateMachineResponse) {
	log := ctrl.LoggerFrom(ctx).WithValues("Machine", klog.KObj(&req.Desired.Machine))
	log.Info("CanUpdateMachine is called")
	if req.Settings["disableInPlaceUpdates"] == "true" {
		resp.Status = runtimehooksv1.ResponseStatusSuccess
		return
	}
	current := req.Current.Machine.DeepCopy()
	objs, err := h.decodeAll(req.Current.BootstrapConfig, req.Desired.BootstrapConfig,
		req.Current.InfrastructureMachine, req.Desired.InfrastructureMachine)
	if err != nil {
		resp.Status = runtimehooksv1.ResponseStatusFailure
		resp.Message = err.Error()
		return
	}
	curBootstrap, desBootstrap, curInfra, desInfra := objs[0], objs[1], objs[2], objs[3]

	canUpdateMachineSpec(&current.Spec, &req.Desired.Machine.Spec)
	if c, ok := curBootstrap.(*bootstrapv1.KubeadmConfig); ok {
		if d, ok := desBootstrap.(*bootstrapv1.KubeadmConfig); ok {
			canUpdateKubeadmConfigSpec(&c.Spec, &d.Spec)
		}
	}
	canUpdateDevMachine(curInfra, desInfra, "DevMachine", "spec")

	machinePatch, err := machineJSONPatch(req.Current.Machine, current)
	if err == nil {
		resp.MachinePatch, resp.BootstrapConfigPatch, resp.InfrastructureMachinePatch, err =
			patches(machinePatch, req.Current.BootstrapConfig.Raw, curBootstrap, req.Current.InfrastructureMachine.Raw, curInfra)
	}
	if err != nil {
		resp.Status = runtimehooksv1.ResponseStatusFailure
		resp.Message = err.Error()
		return
	}
	resp.Status = runtimehooksv1.ResponseStatusSuccess
}

// DoCanUpdateMachineSet implements the CanUpdateMachineSet hook.
func (h *ExtensionHandlers) DoCanUpdateMachineSet(ctx context.Context, req *runtimehooksv1.CanUpdateMachineSetRequest, resp *runtimehooksv1.CanUpdateMachineSetResponse) {
	log := ctrl.LoggerFrom(ctx).WithValues("MachineSet", klog.KObj(&req.Desired.MachineSet))
	log.Info("CanUpdateMachineSet is called")
	if req.Settings["disableInPlaceUpdates"] == "true" {
		resp.Status = runtimehooksv1.ResponseStatusSuccess
		return
	}
	current := req.Current.MachineSet.DeepCopy()
	objs, err := h.decodeAll(req.Current.BootstrapConfigTemplate, req.Desired.BootstrapConfigTemplate,
		req.Current.InfrastructureMachineTemplate, req.Desired.InfrastructureMachineTemplate)
	if err != nil {
		resp.Status = runtimehooksv1.ResponseStatusFailure
		resp.Message = err.Error()
		return
	}
	curBootstrap, desBootstrap, curInfra, desInfra := objs[0], objs[1], objs[2], objs[3]

	canUpdateMachineSpec(&current.Spec.Template.Spec, &req.Desired.MachineSet.Spec.Template.Spec)
	if c, ok := curBootstrap.(*bootstrapv1.KubeadmConfigTemplate); ok {
		if d, ok := desBootstrap.(*bootstrapv1.KubeadmConfigTemplate); ok {
			canUpdateKubeadmConfigSpec(&c.Spec.Template.Spec, &d.Spec.Template.Spec)
		}
	}
	canUpdateDevMachine(curInfra, desInfra, "DevMachineTemplate", "spec", "template", "spec")

	machineSetPatch, err := machineJSONPatch(req.Current.MachineSet, current)
	if err == nil {
		resp.MachineSetPatch, resp.BootstrapConfigTemplatePatch, resp.InfrastructureMachineTemplatePatch, err =
			patches(machineSetPatch, req.Current.BootstrapConfigTemplate.Raw, curBootstrap, req.Current.InfrastructureMachineTemplate.Raw, curInfra)
	}
	if err != nil {
		resp.Status = runtimehooksv1.ResponseStatusFailure
		resp.Message = err.Error()
		return
	}
	resp.Status = runtimehooksv1.ResponseStatusSuccess
}

// DoUpdateMachine implements the UpdateMachine hook. As upstream's, it fakes the update: "in progress" until the
// update time has passed since the first call for the Machine, then "completed" (and forgets the Machine).
func (h *ExtensionHandlers) DoUpdateMachine(ctx context.Context, req *runtimehooksv1.UpdateMachineRequest, resp *runtimehooksv1.UpdateMachineResponse) {
	log := ctrl.LoggerFrom(ctx).WithValues("Machine", klog.KObj(&req.Desired.Machine))
	log.Info("UpdateMachine is called")
	defer func() {
		log.Info("UpdateMachine response", "status", resp.Status, "message", resp.Message, "retryAfterSeconds", resp.RetryAfterSeconds)
	}()
	if req.Settings["disableInPlaceUpdates"] == "true" {
		resp.Status = runtimehooksv1.ResponseStatusFailure
		resp.Message = "Unexpected call to UpdateMachine hook after CanUpdateMachine or CanUpdateMachineSet did not return any patches"
		return
	}
	key := klog.KObj(&req.Desired.Machine).String()
	if first, ok := h.state.Load(key); ok {
		if h.now().Sub(first.(time.Time)) >= h.updateTime() {
			h.state.Delete(key)
			resp.Status = runtimehooksv1.ResponseStatusSuccess
			resp.Message = "Extension completed updating Machine"
			resp.RetryAfterSeconds = 0
			return
		}
	} else {
		h.state.Store(key, h.now())
	}
	resp.Status = runtimehooksv1.ResponseStatusSuccess
	resp.Message = "Extension is updating Machine"
	resp.RetryAfterSeconds = h.timing.RetryAfterSeconds
}

func (h *ExtensionHandlers) updateTime() time.Duration {
	d := h.timing.Duration
	if h.timing.Jitter > 0 && h.timing.Rand != nil {
		d += time.Duration(h.timing.Rand(int64(h.timing.Jitter)))
	}
	return d
}

func (h *ExtensionHandlers) decodeAll(raws ...runtime.RawExtension) ([]runtime.Object, error) {
	out := make([]runtime.Object, 0, len(raws))
	for _, raw := range raws {
		obj, err := h.decode(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, obj)
	}
	return out, nil
}

func machineJSONPatch(original, modified any) ([]byte, error) {
	marshalled, err := json.Marshal(original)
	if err != nil {
		return nil, err
	}
	return createJSONPatch(marshalled, modified)
}

func patches(primary, bootstrapRaw []byte, bootstrap runtime.Object, infraRaw []byte, infra runtime.Object) (p1, p2, p3 runtimehooksv1.Patch, err error) {
	bootstrapPatch, err := createJSONPatch(bootstrapRaw, bootstrap)
	if err != nil {
		return p1, p2, p3, err
	}
	infraPatch, err := createJSONPatch(infraRaw, infra)
	if err != nil {
		return p1, p2, p3, err
	}
	return runtimehooksv1.Patch{PatchType: runtimehooksv1.JSONPatchType, Patch: primary},
		runtimehooksv1.Patch{PatchType: runtimehooksv1.JSONPatchType, Patch: bootstrapPatch},
		runtimehooksv1.Patch{PatchType: runtimehooksv1.JSONPatchType, Patch: infraPatch},
		nil
}

// createJSONPatch creates an RFC 6902 JSON patch from the original and the modified object (upstream's helper).
func createJSONPatch(marshalledOriginal []byte, modified any) ([]byte, error) {
	marshalledModified, err := json.Marshal(modified)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal modified object: %v", err)
	}
	patch, err := jsonpatch.CreatePatch(marshalledOriginal, marshalledModified)
	if err != nil {
		return nil, fmt.Errorf("failed to create patch: %v", err)
	}
	patchBytes, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("failed to marshal patch: %v", err)
	}
	return patchBytes, nil
}
