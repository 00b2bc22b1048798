// k1s' own description of the parts of containerd's gRPC API the registry uses: content (blobs), images (names →
// descriptors) and leases (keep fresh blobs from the garbage collector until a manifest refers to them). Package,
// service, message and field names and numbers are containerd's wire contract (api/services/*/v1 of containerd
// 1.6); the rest is left out. Embedded as a string so a single-file bundle needs no .proto on disk.

export const CONTAINERD_API_PROTO = `
syntax = "proto3";
package containerd.services.content.v1;

message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message FieldMask { repeated string paths = 1; }
message Empty {}

service Content {
  rpc Info(InfoRequest) returns (InfoResponse);
  rpc Update(UpdateRequest) returns (UpdateResponse);
  rpc Delete(DeleteContentRequest) returns (Empty);
  rpc Write(stream WriteContentRequest) returns (stream WriteContentResponse);
  rpc Abort(AbortRequest) returns (Empty);
}

message Info {
  string digest = 1;
  int64 size = 2;
  Timestamp created_at = 3;
  Timestamp updated_at = 4;
  map<string, string> labels = 5;
}
message InfoRequest { string digest = 1; }
message InfoResponse { Info info = 1; }
message UpdateRequest { Info info = 1; FieldMask update_mask = 2; }
message UpdateResponse { Info info = 1; }
message DeleteContentRequest { string digest = 1; }
enum WriteAction { STAT = 0; WRITE = 1; COMMIT = 2; }
message WriteContentRequest {
  WriteAction action = 1;
  string ref = 2;
  int64 total = 3;
  string expected = 4;
  int64 offset = 5;
  bytes data = 6;
  map<string, string> labels = 7;
}
message WriteContentResponse {
  WriteAction action = 1;
  Timestamp started_at = 2;
  Timestamp updated_at = 3;
  int64 offset = 4;
  int64 total = 5;
  string digest = 6;
}
message AbortRequest { string ref = 1; }
`;

export const CONTAINERD_IMAGES_PROTO = `
syntax = "proto3";
package containerd.services.images.v1;

message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message FieldMask { repeated string paths = 1; }
message Empty {}
message Descriptor {
  string media_type = 1;
  string digest = 2;
  int64 size = 3;
  map<string, string> annotations = 5;
}

service Images {
  rpc Get(GetImageRequest) returns (GetImageResponse);
  rpc List(ListImagesRequest) returns (ListImagesResponse);
  rpc Create(CreateImageRequest) returns (CreateImageResponse);
  rpc Update(UpdateImageRequest) returns (UpdateImageResponse);
  rpc Delete(DeleteImageRequest) returns (Empty);
}

message Image {
  string name = 1;
  map<string, string> labels = 2;
  Descriptor target = 3;
  Timestamp created_at = 7;
  Timestamp updated_at = 8;
}
message GetImageRequest { string name = 1; }
message GetImageResponse { Image image = 1; }
message CreateImageRequest { Image image = 1; }
message CreateImageResponse { Image image = 1; }
message UpdateImageRequest { Image image = 1; FieldMask update_mask = 2; }
message UpdateImageResponse { Image image = 1; }
message ListImagesRequest { repeated string filters = 1; }
message ListImagesResponse { repeated Image images = 1; }
message DeleteImageRequest { string name = 1; bool sync = 2; }
`;

export const CONTAINERD_LEASES_PROTO = `
syntax = "proto3";
package containerd.services.leases.v1;

message Timestamp { int64 seconds = 1; int32 nanos = 2; }
message Empty {}

service Leases {
  rpc Create(CreateRequest) returns (CreateResponse);
  rpc Delete(DeleteRequest) returns (Empty);
}

message Lease { string id = 1; Timestamp created_at = 2; map<string, string> labels = 3; }
message CreateRequest { string id = 1; map<string, string> labels = 3; }
message CreateResponse { Lease lease = 1; }
message DeleteRequest { string id = 1; bool sync = 2; }
`;
