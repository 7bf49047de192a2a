//! Harness configs: the named checkpoints a harness declares in
//! `.harness/config.json`.

pub(crate) mod h501_duplicate_checkpoint_name;
pub(crate) mod h502_unknown_trigger;
pub(crate) mod h503_unsafe_checkpoint_name;
