// Protobuf schemas of the built-in kinds this server serves (k8s.io/api core/v1, coordination/v1, events/v1).
// Field numbers are those of upstream's generated.proto; only the messages these kinds reach are declared.

export const CORE_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.core.v1;

message ObjectReference {
  optional string kind = 1;
  optional string namespace = 2;
  optional string name = 3;
  optional string uid = 4;
  optional string apiVersion = 5;
  optional string resourceVersion = 6;
  optional string fieldPath = 7;
}

message Namespace {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NamespaceSpec spec = 2;
  optional NamespaceStatus status = 3;
}
message NamespaceSpec {
  repeated string finalizers = 1;
}
message NamespaceStatus {
  optional string phase = 1;
  repeated NamespaceCondition conditions = 2;
}
message NamespaceCondition {
  optional string type = 1;
  optional string status = 2;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}
message NamespaceList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Namespace items = 2;
}

message Secret {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 5;
  map<string, bytes> data = 2;
  map<string, string> stringData = 4;
  optional string type = 3;
}
message SecretList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Secret items = 2;
}

message ConfigMap {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional bool immutable = 4;
  map<string, string> data = 2;
  map<string, bytes> binaryData = 3;
}
message ConfigMapList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated ConfigMap items = 2;
}

message Event {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional ObjectReference involvedObject = 2;
  optional string reason = 3;
  optional string message = 4;
  optional EventSource source = 5;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time firstTimestamp = 6;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTimestamp = 7;
  optional int32 count = 8;
  optional string type = 9;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 10;
  optional EventSeries series = 11;
  optional string action = 12;
  optional ObjectReference related = 13;
  optional string reportingComponent = 14;
  optional string reportingInstance = 15;
}
message EventSource {
  optional string component = 1;
  optional string host = 2;
}
message EventSeries {
  optional int32 count = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}
message EventList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}

message Node {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional NodeSpec spec = 2;
  optional NodeStatus status = 3;
}
message NodeSpec {
  optional string podCIDR = 1;
  repeated string podCIDRs = 7;
  optional string providerID = 3;
  optional bool unschedulable = 4;
  repeated Taint taints = 5;
  optional NodeConfigSource configSource = 6;
  optional string externalID = 2;
}
message Taint {
  optional string key = 1;
  optional string value = 2;
  optional string effect = 3;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time timeAdded = 4;
}
message NodeConfigSource {
  optional ConfigMapNodeConfigSource configMap = 2;
}
message ConfigMapNodeConfigSource {
  optional string namespace = 1;
  optional string name = 2;
  optional string uid = 3;
  optional string resourceVersion = 4;
  optional string kubeletConfigKey = 5;
}
message NodeStatus {
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> capacity = 1;
  map<string, k8s.io.apimachinery.pkg.api.resource.Quantity> allocatable = 2;
  optional string phase = 3;
  repeated NodeCondition conditions = 4;
  repeated NodeAddress addresses = 5;
  optional NodeDaemonEndpoints daemonEndpoints = 6;
  optional NodeSystemInfo nodeInfo = 7;
  repeated ContainerImage images = 8;
  repeated string volumesInUse = 9;
  repeated AttachedVolume volumesAttached = 10;
  optional NodeConfigStatus config = 11;
  repeated NodeRuntimeHandler runtimeHandlers = 12;
  optional NodeFeatures features = 13;
}
message NodeCondition {
  optional string type = 1;
  optional string status = 2;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastHeartbeatTime = 3;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 4;
  optional string reason = 5;
  optional string message = 6;
}
message NodeAddress {
  optional string type = 1;
  optional string address = 2;
}
message NodeDaemonEndpoints {
  optional DaemonEndpoint kubeletEndpoint = 1;
}
message DaemonEndpoint {
  optional int32 Port = 1;
}
message NodeSystemInfo {
  optional string machineID = 1;
  optional string systemUUID = 2;
  optional string bootID = 3;
  optional string kernelVersion = 4;
  optional string osImage = 5;
  optional string containerRuntimeVersion = 6;
  optional string kubeletVersion = 7;
  optional string kubeProxyVersion = 8;
  optional string operatingSystem = 9;
  optional string architecture = 10;
  optional NodeSwapStatus swap = 11;
}
message NodeSwapStatus {
  optional int64 capacity = 1;
}
message ContainerImage {
  repeated string names = 1;
  optional int64 sizeBytes = 2;
}
message AttachedVolume {
  optional string name = 1;
  optional string devicePath = 2;
}
message NodeConfigStatus {
  optional NodeConfigSource assigned = 1;
  optional NodeConfigSource active = 2;
  optional NodeConfigSource lastKnownGood = 3;
  optional string error = 4;
}
message NodeRuntimeHandler {
  optional string name = 1;
  optional NodeRuntimeHandlerFeatures features = 2;
}
message NodeRuntimeHandlerFeatures {
  optional bool recursiveReadOnlyMounts = 1;
  optional bool userNamespaces = 2;
}
message NodeFeatures {
  optional bool supplementalGroupsPolicy = 1;
}
message NodeList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Node items = 2;
}
`;

export const COORDINATION_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.coordination.v1;

message Lease {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional LeaseSpec spec = 2;
}
message LeaseSpec {
  optional string holderIdentity = 1;
  optional int32 leaseDurationSeconds = 2;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime acquireTime = 3;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime renewTime = 4;
  optional int32 leaseTransitions = 5;
  optional string strategy = 6;
  optional string preferredHolder = 7;
}
message LeaseList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Lease items = 2;
}
`;

export const EVENTS_V1_PROTO = `
syntax = "proto2";
package k8s.io.api.events.v1;

message Event {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime eventTime = 2;
  optional EventSeries series = 3;
  optional string reportingController = 4;
  optional string reportingInstance = 5;
  optional string action = 6;
  optional string reason = 7;
  optional k8s.io.api.core.v1.ObjectReference regarding = 8;
  optional k8s.io.api.core.v1.ObjectReference related = 9;
  optional string note = 10;
  optional string type = 11;
  optional k8s.io.api.core.v1.EventSource deprecatedSource = 12;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedFirstTimestamp = 13;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time deprecatedLastTimestamp = 14;
  optional int32 deprecatedCount = 15;
}
message EventSeries {
  optional int32 count = 1;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime lastObservedTime = 2;
}
message EventList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated Event items = 2;
}
`;
