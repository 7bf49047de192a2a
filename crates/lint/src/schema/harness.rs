//! The harness config's builder (`.harness/config.json`): its checkpoint
//! types, read with the walker's readers.

use crate::format::{HARNESS_CHECKPOINT_TYPE, HARNESS_CHECKPOINTS, HARNESS_ROOT};
use crate::model::*;
use crate::syntax::Node;

use super::{Path, Walker};

impl Walker<'_, '_> {
    pub(super) fn harness(&mut self, root: Node<'_>) -> HarnessConfig {
        let mut config = HarnessConfig::default();
        let path = Path::HarnessRoot;
        let Some(keys) = self.mapping(root, &path, &HARNESS_ROOT) else {
            return config;
        };
        let Some(node) = keys.present("checkpoints") else {
            return config;
        };
        let here = path.key("checkpoints");
        let Some(checkpoints) = self.mapping(node, &here, &HARNESS_CHECKPOINTS) else {
            return config;
        };
        config.enabled = self.bool(&checkpoints, "enabled", &here);
        let types = here.key("types");
        for (i, item) in self.list(&checkpoints, "types", &here).iter().enumerate() {
            let at = types.index(i);
            let Some(entry) = self.mapping(item, &at, &HARNESS_CHECKPOINT_TYPE) else {
                continue;
            };
            if !self.charge(std::mem::size_of::<HarnessCheckpoint>(), item.span) {
                continue;
            }
            config.checkpoints.push(HarnessCheckpoint {
                span: item.span,
                name: self.required_string(&entry, "name", &at),
                trigger_on: self.opt_string(&entry, "triggerOn", &at),
                description: self.opt_string(&entry, "description", &at),
            });
        }
        config
    }
}
