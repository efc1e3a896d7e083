// kube's protobuf wire format for the built-in kinds this server serves (see README "Protobuf").
export { ProtobufDecodeError, ProtobufEncodeError } from './codec';
export {
  decodeDeleteOptions,
  decodeObject,
  decodeWatchFrames,
  encodeObject,
  encodeWatchFrame,
  PROTOBUF_MEDIA_TYPE,
  PROTOBUF_WATCH_MEDIA_TYPE,
  protobufSupported,
} from './envelope';
export { negotiateResponse, type ResponseFormat } from './negotiate';
