// Protobuf schema of apiextensions.k8s.io/v1 CustomResourceDefinition. Field numbers are those of upstream's
// generated.proto (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1). The JSON names that differ from the
// proto names ($ref, x-kubernetes-*) and the union types (JSON, JSONSchemaPropsOr*) are mapped in codec.ts.

export const APIEXTENSIONS_V1_PROTO = `
syntax = "proto2";
package k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1;

message CustomResourceDefinition {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional CustomResourceDefinitionSpec spec = 2;
  optional CustomResourceDefinitionStatus status = 3;
}
message CustomResourceDefinitionList {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta metadata = 1;
  repeated CustomResourceDefinition items = 2;
}
message CustomResourceDefinitionSpec {
  optional string group = 1;
  optional CustomResourceDefinitionNames names = 3;
  optional string scope = 4;
  repeated CustomResourceDefinitionVersion versions = 7;
  optional CustomResourceConversion conversion = 9;
  optional bool preserveUnknownFields = 10;
}
message CustomResourceDefinitionNames {
  optional string plural = 1;
  optional string singular = 2;
  repeated string shortNames = 3;
  optional string kind = 4;
  optional string listKind = 5;
  repeated string categories = 6;
}
message CustomResourceDefinitionVersion {
  optional string name = 1;
  optional bool served = 2;
  optional bool storage = 3;
  optional bool deprecated = 7;
  optional string deprecationWarning = 8;
  optional CustomResourceValidation schema = 4;
  optional CustomResourceSubresources subresources = 5;
  repeated CustomResourceColumnDefinition additionalPrinterColumns = 6;
  repeated SelectableField selectableFields = 9;
}
message SelectableField {
  optional string jsonPath = 1;
}
message CustomResourceColumnDefinition {
  optional string name = 1;
  optional string type = 2;
  optional string format = 3;
  optional string description = 4;
  optional int32 priority = 5;
  optional string jsonPath = 6;
}
message CustomResourceSubresources {
  optional CustomResourceSubresourceStatus status = 1;
  optional CustomResourceSubresourceScale scale = 2;
}
message CustomResourceSubresourceStatus {
}
message CustomResourceSubresourceScale {
  optional string specReplicasPath = 1;
  optional string statusReplicasPath = 2;
  optional string labelSelectorPath = 3;
}
message CustomResourceValidation {
  optional JSONSchemaProps openAPIV3Schema = 1;
}
message CustomResourceConversion {
  optional string strategy = 1;
  optional WebhookConversion webhook = 2;
}
message WebhookConversion {
  optional WebhookClientConfig clientConfig = 2;
  repeated string conversionReviewVersions = 3;
}
message WebhookClientConfig {
  optional string url = 3;
  optional ServiceReference service = 1;
  optional bytes caBundle = 2;
}
message ServiceReference {
  optional string namespace = 1;
  optional string name = 2;
  optional string path = 3;
  optional int32 port = 4;
}
message CustomResourceDefinitionStatus {
  repeated CustomResourceDefinitionCondition conditions = 1;
  optional CustomResourceDefinitionNames acceptedNames = 2;
  repeated string storedVersions = 3;
}
message CustomResourceDefinitionCondition {
  optional string type = 1;
  optional string status = 2;
  optional k8s.io.apimachinery.pkg.apis.meta.v1.Time lastTransitionTime = 3;
  optional string reason = 4;
  optional string message = 5;
}

message JSON {
  optional bytes raw = 1;
}
message ExternalDocumentation {
  optional string description = 1;
  optional string url = 2;
}
message ValidationRule {
  optional string rule = 1;
  optional string message = 2;
  optional string messageExpression = 3;
  optional string reason = 4;
  optional string fieldPath = 5;
  optional bool optionalOldSelf = 6;
}
message JSONSchemaPropsOrArray {
  optional JSONSchemaProps schema = 1;
  repeated JSONSchemaProps jSONSchemas = 2;
}
message JSONSchemaPropsOrBool {
  optional bool allows = 1;
  optional JSONSchemaProps schema = 2;
}
message JSONSchemaPropsOrStringArray {
  optional JSONSchemaProps schema = 1;
  repeated string property = 2;
}
message JSONSchemaProps {
  optional string id = 1;
  optional string schema = 2;
  optional string ref = 3;
  optional string description = 4;
  optional string type = 5;
  optional string format = 6;
  optional string title = 7;
  optional JSON default = 8;
  optional double maximum = 9;
  optional bool exclusiveMaximum = 10;
  optional double minimum = 11;
  optional bool exclusiveMinimum = 12;
  optional int64 maxLength = 13;
  optional int64 minLength = 14;
  optional string pattern = 15;
  optional int64 maxItems = 16;
  optional int64 minItems = 17;
  optional bool uniqueItems = 18;
  optional double multipleOf = 19;
  repeated JSON enum = 20;
  optional int64 maxProperties = 21;
  optional int64 minProperties = 22;
  repeated string required = 23;
  optional JSONSchemaPropsOrArray items = 24;
  repeated JSONSchemaProps allOf = 25;
  repeated JSONSchemaProps oneOf = 26;
  repeated JSONSchemaProps anyOf = 27;
  optional JSONSchemaProps not = 28;
  map<string, JSONSchemaProps> properties = 29;
  optional JSONSchemaPropsOrBool additionalProperties = 30;
  map<string, JSONSchemaProps> patternProperties = 31;
  map<string, JSONSchemaPropsOrStringArray> dependencies = 32;
  optional JSONSchemaPropsOrBool additionalItems = 33;
  map<string, JSONSchemaProps> definitions = 34;
  optional ExternalDocumentation externalDocs = 35;
  optional JSON example = 36;
  optional bool nullable = 37;
  optional bool xKubernetesPreserveUnknownFields = 38;
  optional bool xKubernetesEmbeddedResource = 39;
  optional bool xKubernetesIntOrString = 40;
  repeated string xKubernetesListMapKeys = 41;
  optional string xKubernetesListType = 42;
  optional string xKubernetesMapType = 43;
  repeated ValidationRule xKubernetesValidations = 44;
}
`;
