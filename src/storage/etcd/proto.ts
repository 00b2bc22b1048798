// The part of etcd's v3 API (api/etcdserverpb/rpc.proto and api/mvccpb/kv.proto, etcd 3.4) that k1s uses: KV, Watch
// and Maintenance.Status. Field numbers are etcd's and must not change; everything else is left out. The messages
// of mvccpb live in this one package (the wire does not carry package names; only the services' names matter).
// Embedded as a string so a single-file bundle needs no .proto on disk.
export const ETCD_API_PROTO = `
syntax = "proto3";
package etcdserverpb;

message KeyValue { bytes key = 1; int64 create_revision = 2; int64 mod_revision = 3; int64 version = 4; bytes value = 5; int64 lease = 6; }
message Event {
  enum EventType { PUT = 0; DELETE = 1; }
  EventType type = 1; KeyValue kv = 2; KeyValue prev_kv = 3;
}

message ResponseHeader { uint64 cluster_id = 1; uint64 member_id = 2; int64 revision = 3; uint64 raft_term = 4; }

message RangeRequest {
  enum SortOrder { NONE = 0; ASCEND = 1; DESCEND = 2; }
  enum SortTarget { KEY = 0; VERSION = 1; CREATE = 2; MOD = 3; VALUE = 4; }
  bytes key = 1; bytes range_end = 2; int64 limit = 3; int64 revision = 4;
  SortOrder sort_order = 5; SortTarget sort_target = 6; bool serializable = 7; bool keys_only = 8; bool count_only = 9;
  int64 min_mod_revision = 10; int64 max_mod_revision = 11; int64 min_create_revision = 12; int64 max_create_revision = 13;
}
message RangeResponse { ResponseHeader header = 1; repeated KeyValue kvs = 2; bool more = 3; int64 count = 4; }

message PutRequest { bytes key = 1; bytes value = 2; int64 lease = 3; bool prev_kv = 4; bool ignore_value = 5; bool ignore_lease = 6; }
message PutResponse { ResponseHeader header = 1; KeyValue prev_kv = 2; }

message DeleteRangeRequest { bytes key = 1; bytes range_end = 2; bool prev_kv = 3; }
message DeleteRangeResponse { ResponseHeader header = 1; int64 deleted = 2; repeated KeyValue prev_kvs = 3; }

message RequestOp {
  oneof request { RangeRequest request_range = 1; PutRequest request_put = 2; DeleteRangeRequest request_delete_range = 3; }
}
message ResponseOp {
  oneof response { RangeResponse response_range = 1; PutResponse response_put = 2; DeleteRangeResponse response_delete_range = 3; }
}

message Compare {
  enum CompareResult { EQUAL = 0; GREATER = 1; LESS = 2; NOT_EQUAL = 3; }
  enum CompareTarget { VERSION = 0; CREATE = 1; MOD = 2; VALUE = 3; LEASE = 4; }
  CompareResult result = 1; CompareTarget target = 2; bytes key = 3;
  oneof target_union { int64 version = 4; int64 create_revision = 5; int64 mod_revision = 6; bytes value = 7; int64 lease = 8; }
  bytes range_end = 64;
}
message TxnRequest { repeated Compare compare = 1; repeated RequestOp success = 2; repeated RequestOp failure = 3; }
message TxnResponse { ResponseHeader header = 1; bool succeeded = 2; repeated ResponseOp responses = 3; }

message CompactionRequest { int64 revision = 1; bool physical = 2; }
message CompactionResponse { ResponseHeader header = 1; }

service KV {
  rpc Range(RangeRequest) returns (RangeResponse) {}
  rpc Put(PutRequest) returns (PutResponse) {}
  rpc DeleteRange(DeleteRangeRequest) returns (DeleteRangeResponse) {}
  rpc Txn(TxnRequest) returns (TxnResponse) {}
  rpc Compact(CompactionRequest) returns (CompactionResponse) {}
}

message WatchRequest {
  oneof request_union { WatchCreateRequest create_request = 1; WatchCancelRequest cancel_request = 2; WatchProgressRequest progress_request = 3; }
}
message WatchCreateRequest {
  enum FilterType { NOPUT = 0; NODELETE = 1; }
  bytes key = 1; bytes range_end = 2; int64 start_revision = 3; bool progress_notify = 4;
  repeated FilterType filters = 5; bool prev_kv = 6; int64 watch_id = 7; bool fragment = 8;
}
message WatchCancelRequest { int64 watch_id = 1; }
message WatchProgressRequest {}
message WatchResponse {
  ResponseHeader header = 1; int64 watch_id = 2; bool created = 3; bool canceled = 4; int64 compact_revision = 5;
  string cancel_reason = 6; bool fragment = 7; repeated Event events = 11;
}

service Watch {
  rpc Watch(stream WatchRequest) returns (stream WatchResponse) {}
}

message StatusRequest {}
message StatusResponse {
  ResponseHeader header = 1; string version = 2; int64 dbSize = 3; uint64 leader = 4; uint64 raftIndex = 5;
  uint64 raftTerm = 6; uint64 raftAppliedIndex = 7; repeated string errors = 8; int64 dbSizeInUse = 9; bool isLearner = 10;
}

service Maintenance {
  rpc Status(StatusRequest) returns (StatusResponse) {}
}
`;
