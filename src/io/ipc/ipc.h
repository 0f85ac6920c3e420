/*
 * ipc.h -- what the Arrow IPC reader and writer share (internal): the
 * numbers of Arrow's format/Schema.fbs, Message.fbs and File.fbs.
 */
#ifndef ZAMBEZI_IO_IPC_IPC_H
#define ZAMBEZI_IO_IPC_IPC_H

/* Type union tags (Schema.fbs, union Type) */
enum {
  IPC_T_NONE = 0,
  IPC_T_NULL = 1,
  IPC_T_INT = 2,
  IPC_T_FLOAT = 3,
  IPC_T_BINARY = 4,
  IPC_T_UTF8 = 5,
  IPC_T_BOOL = 6,
  IPC_T_DECIMAL = 7,
  IPC_T_DATE = 8,
  IPC_T_TIME = 9,
  IPC_T_TIMESTAMP = 10,
  IPC_T_INTERVAL = 11,
  IPC_T_LIST = 12,
  IPC_T_STRUCT = 13,
  IPC_T_UNION = 14,
  IPC_T_FIXED_BINARY = 15,
  IPC_T_FIXED_LIST = 16,
  IPC_T_MAP = 17,
  IPC_T_DURATION = 18,
  IPC_T_LARGE_BINARY = 19,
  IPC_T_LARGE_UTF8 = 20,
  IPC_T_LARGE_LIST = 21,
  IPC_T_RUN_END = 22,
  IPC_T_BINARY_VIEW = 23,
  IPC_T_UTF8_VIEW = 24,
  IPC_T_LIST_VIEW = 25,
  IPC_T_LARGE_LIST_VIEW = 26
};

/* MessageHeader union tags (Message.fbs) */
enum { IPC_MSG_SCHEMA = 1, IPC_MSG_DICTIONARY = 2, IPC_MSG_RECORD_BATCH = 3 };

/* Table slots used by both sides */
enum {
  /* Footer */ IPC_FOOTER_VERSION = 0, IPC_FOOTER_SCHEMA = 1, IPC_FOOTER_DICTS = 2,
  IPC_FOOTER_BATCHES = 3,
  /* Message */ IPC_MSG_VERSION = 0, IPC_MSG_HEADER_TYPE = 1, IPC_MSG_HEADER = 2,
  IPC_MSG_BODY_LENGTH = 3,
  /* Schema */ IPC_SCHEMA_ENDIANNESS = 0, IPC_SCHEMA_FIELDS = 1, IPC_SCHEMA_METADATA = 2,
  /* Field */ IPC_FIELD_NAME = 0, IPC_FIELD_NULLABLE = 1, IPC_FIELD_TYPE_TYPE = 2,
  IPC_FIELD_TYPE = 3, IPC_FIELD_DICT = 4, IPC_FIELD_CHILDREN = 5,
  /* DictionaryEncoding */ IPC_DICT_ID = 0, IPC_DICT_INDEX_TYPE = 1, IPC_DICT_ORDERED = 2,
  /* RecordBatch */ IPC_RB_LENGTH = 0, IPC_RB_NODES = 1, IPC_RB_BUFFERS = 2,
  IPC_RB_COMPRESSION = 3,
  /* DictionaryBatch */ IPC_DB_ID = 0, IPC_DB_DATA = 1, IPC_DB_DELTA = 2
};

#define IPC_METADATA_V5 4 /* MetadataVersion.V5 */
#define IPC_BLOCK_SIZE 24 /* struct Block { long offset; int metaDataLength; long bodyLength } */
#define IPC_NODE_SIZE 16  /* struct FieldNode { long length; long null_count } */
#define IPC_BUF_SIZE 16   /* struct Buffer { long offset; long length } */

#endif
