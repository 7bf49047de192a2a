//! Governance: who must approve an irreversible act, whether a policy
//! override is authorized, what a verification expression may do, and which
//! secrets a checkpoint would persist.

pub(crate) mod p401_irreversible_without_human_gate;
pub(crate) mod p402_unauthorized_never_mode;
pub(crate) mod p403_unsafe_verification;
pub(crate) mod p404_persisted_secret;
