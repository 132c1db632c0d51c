"""Compatibility: the names ``answerlens.bundle`` held before the models were split from loading.

New code imports the models from ``answerlens.records`` and loading from ``answerlens.loading``; this module only
re-exports them, so code written against the earlier layout (upstream-test adapters among it) keeps working.
"""

from answerlens.json_reader import MB, parse_json
from answerlens.json_reader import read_json as read_json_file
from answerlens.loading import (
    MAX_BUNDLE_BYTES,
    SIMPLE_SECTION,
    SimpleBundle,
    SimplePacking,
    SimpleRecord,
    load_bundle,
)
from answerlens.records import (
    MAX_SPEAKER_LENGTH,
    SPEAKER_METADATA_KEY,
    Candidate,
    ConditionState,
    ContextFormat,
    EpistemicType,
    LifecycleState,
    MemoryBundle,
    MemoryRecord,
    NodeType,
    RepresentationLevel,
    Scope,
    SourceType,
    normalize_speaker,
)

__all__ = [
    "MAX_BUNDLE_BYTES",
    "MAX_SPEAKER_LENGTH",
    "MB",
    "SIMPLE_SECTION",
    "SPEAKER_METADATA_KEY",
    "Candidate",
    "ConditionState",
    "ContextFormat",
    "EpistemicType",
    "LifecycleState",
    "MemoryBundle",
    "MemoryRecord",
    "NodeType",
    "RepresentationLevel",
    "Scope",
    "SimpleBundle",
    "SimplePacking",
    "SimpleRecord",
    "SourceType",
    "load_bundle",
    "normalize_speaker",
    "parse_json",
    "read_json_file",
]
