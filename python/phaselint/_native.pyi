"""Type stubs of `phaselint._native`, the extension module built from
crates/python. Use the `phaselint` package instead: it turns these JSON
answers into Python objects and these exceptions into its own."""

from typing import Callable, Optional

VERSION: str
CONTEXT_BOUND: int
CONTEXT_BOUND_TEXT: str

class NoVerdict(Exception):
    """The inputs give no verdict; the message is the CLI's."""

class ContractCache:
    """A contract kept between checks; analyzed again when its bytes change."""

    def __init__(self) -> None: ...

class InternalError(Exception):
    """A bug in phaselint (a Rust panic), caught at the boundary."""

def resume_check(
    *,
    contract_path: Optional[str],
    contract_text: Optional[str],
    checkpoint_id: str,
    context_json: str,
    approval_files: list[str],
    approval_records_json: Optional[str],
    now: Optional[str],
    mode: str,
    next_phase: Optional[str],
    harness_dir: Optional[str],
    config: Optional[str],
    no_config: bool,
    trust_context_approvals: bool,
    recoverer: Optional[
        tuple[str, Callable[[str, str, str, str], tuple[bool, str]], Callable[[], str]]
    ],
    cache: Optional[ContractCache] = None,
) -> str: ...
def outline(
    *,
    contract_path: Optional[str],
    contract_text: Optional[str],
    config: Optional[str],
    no_config: bool,
    cache: Optional[ContractCache] = None,
) -> str: ...
def lint(*, source: Optional[str], path: str, config: Optional[str], read: bool) -> str: ...
def approve(
    *,
    contract_path: Optional[str],
    contract_text: Optional[str],
    checkpoint_id: str,
    approved_by: str,
    policy: str,
    ack: list[str],
    context_json: Optional[str],
    notes: Optional[str],
    now: Optional[str],
    confirm_irreversible: bool,
    config: Optional[str],
    no_config: bool,
) -> tuple[str, list[str]]: ...

def _panic_for_tests() -> None: ...
