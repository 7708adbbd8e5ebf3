"""Python client for stroke-worker (wire protocol v1, see Protocol/README.md)."""

from .codec import (
    BINARY_MAGIC,
    decode_binary,
    decode_event,
    encode_binary,
    encode_json,
)
from .shard import BUCKET_COUNT, bucket, fnv1a32, shard_prefixes, topic
from .client import AsyncConsumer, Consumer, Event, Producer
from .curve import CurveKeys, load_key, load_keys
from .handshakes import KeyRefused

__all__ = [
    "AsyncConsumer",
    "BINARY_MAGIC",
    "BUCKET_COUNT",
    "Consumer",
    "CurveKeys",
    "Event",
    "KeyRefused",
    "Producer",
    "bucket",
    "decode_binary",
    "decode_event",
    "encode_binary",
    "encode_json",
    "fnv1a32",
    "load_key",
    "load_keys",
    "shard_prefixes",
    "topic",
]
