"""Running the claim verifier on each supported or conflicting requirement against its accepted citations.

A missing NLI runtime or model never hides the assessment: the run stops, the note says "NLI model not
installed" with the one-line remedy, and the flags still stand. Other verifier failures are noted the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from answerlens.claims.model_location import MODEL_ENV
from answerlens.claims.models import DEFAULT_NLI_MODEL, ClaimEvidence, ClaimVerification
from answerlens.claims.onnx_scorer import RUNTIME_MISSING
from answerlens.claims.verifier import ClaimVerifier, bundle_evidence
from answerlens.errors import ClaimVerificationError
from answerlens.records import MemoryBundle
from answerlens.second_opinion.models import UnreadPassage, VerifierNote, VerifierState

NOT_INSTALLED = "NLI model not installed"
RUNTIME_REMEDY = "pip install 'answerlens[nli]'"
MODEL_REMEDY = (f"export {DEFAULT_NLI_MODEL} to ONNX (docs/claims.md) and set {MODEL_ENV} to the folder, "
                "or pass --nli-model-dir DIR")
_MODEL_MISSING_PREFIX = "No local NLI model"
"""How ``claims.model_location.missing_model_message`` starts."""


@dataclass(frozen=True)
class VerifierTarget:
    """One requirement to verify: its position, its text, the memories it cites, and whether it is exhaustive."""

    index: int
    claim: str
    memory_ids: tuple[UUID, ...]
    complete_set: bool = False


@dataclass(frozen=True)
class Verified:
    """The verifier's results by requirement index, the passages its model read only the start of, and how the
    run went."""

    results: dict[int, ClaimVerification]
    unread: dict[int, tuple[UnreadPassage, ...]]
    note: VerifierNote


async def verify_targets(verifier: ClaimVerifier, bundle: MemoryBundle, targets: Sequence[VerifierTarget]) -> Verified:
    """Results by requirement index, and how the run went (stopping at the first verifier failure)."""
    passages = {item.memory_id: item for item in bundle_evidence(bundle)}
    results: dict[int, ClaimVerification] = {}
    unread: dict[int, tuple[UnreadPassage, ...]] = {}
    for target in targets:
        evidence = [passages[memory_id] for memory_id in target.memory_ids if memory_id in passages]
        try:
            results[target.index] = await verifier.verify(target.claim, evidence,
                                                          requires_complete_set=target.complete_set)
        except ClaimVerificationError as exc:
            return Verified(results, unread, failure_note(exc, target.index))
        except ValueError as exc:  # e.g. more cited passages than max_evidence
            return Verified(results, unread, VerifierNote(
                state=VerifierState.FAILED, detail=str(exc),
                message=f"the claim verifier refused requirement {target.index + 1}"))
        cut = unread_passages(verifier, target.claim, evidence) if results[target.index].model_called else ()
        if cut:
            unread[target.index] = cut
    return Verified(results, unread, VerifierNote(state=VerifierState.CHECKED))


def unread_passages(verifier: ClaimVerifier, claim: str,
                    evidence: Sequence[ClaimEvidence]) -> tuple[UnreadPassage, ...]:
    """The passages whose (passage, claim) pair the scorer's tokenizer cut, and how much of each it kept; nothing
    when the scorer cannot tell (it has no ``premise_read``)."""
    read = getattr(verifier.scorer, "premise_read", None)
    if read is None:
        return ()
    found = []
    for passage in evidence:
        try:
            kept = int(read(passage.text, claim))
        except ClaimVerificationError:  # the model ran moments ago; a folder changed since is not this call's news
            return ()
        if kept < len(passage.text.rstrip()):
            found.append(UnreadPassage(ref=passage.reference, memory_id=passage.memory_id, read_chars=kept,
                                       chars=len(passage.text)))
    return tuple(found)


def failure_note(exc: ClaimVerificationError, index: int) -> VerifierNote:
    """``unavailable`` with the remedy when the runtime or model is missing; ``failed`` otherwise."""
    text = " ".join(str(exc).split())
    if text == RUNTIME_MISSING or text.startswith(_MODEL_MISSING_PREFIX):
        return VerifierNote(state=VerifierState.UNAVAILABLE, message=NOT_INSTALLED, detail=text,
                            remedy=RUNTIME_REMEDY if text == RUNTIME_MISSING else MODEL_REMEDY)
    return VerifierNote(state=VerifierState.FAILED, detail=text,
                        message=f"the claim verifier failed on requirement {index + 1}")
