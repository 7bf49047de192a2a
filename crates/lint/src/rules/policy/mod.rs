//! Governance: who must approve an irreversible act, whether a policy
//! override is authorized, what a verification expression may do, which
//! secrets a checkpoint would persist, and whether `checkpoint_mode:
//! always` has a spec for the checkpoint after each mutation.

pub(crate) mod p401_irreversible_without_human_gate;
pub(crate) mod p402_unauthorized_never_mode;
pub(crate) mod p403_unsafe_verification;
pub(crate) mod p404_persisted_secret;
pub(crate) mod p405_always_mode_mutation_without_checkpoint;
pub(crate) mod p406_irreversible_phase_without_description;
