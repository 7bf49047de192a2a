//! The context contract's builder: the root, phases and their fields,
//! propagation chains, checkpoints and the graph topology, each read with
//! the walker's readers into the model.

use std::collections::HashMap;

use crate::format::{
    AUTHORIZATION, CHAIN, CHECKPOINT, CYCLE_INVARIANT, EDGE, ENDPOINT, ENTRY, EVALUATION, EXIT,
    FIELD, MERGE_POINT, ON_RESUME, PHASE, QUALITY, ROOT, STALENESS, TOPOLOGY, TOPOLOGY_NODE,
};
use crate::model::*;
use crate::rules::schema::e004_wrong_type;
use crate::syntax::{Entry, Node, Resolved};

use super::{Keys, Path, Walker, heap};

impl Walker<'_, '_> {
    pub(super) fn contract(&mut self, root: Node<'_>) -> Contract {
        let path = Path::Root;
        let mut contract = Contract {
            span: root.span,
            ..Contract::default()
        };
        let Some(keys) = self.mapping(root, &path, &ROOT) else {
            return contract;
        };
        contract.schema_version = self.required_text(&keys, "schema_version", &path);
        contract.pipeline_id = self.required_string(&keys, "pipeline_id", &path);
        contract.description = self.opt_string(&keys, "description", &path);
        if keys.entry("phases").is_some()
            && let Some(node) = keys.value("phases")
            && let Some(phases) = self.phases(node, &path.key("phases"))
        {
            contract.set_phases(phases);
            contract.phases_known = true;
        }
        let chains = path.key("propagation_chains");
        for (i, item) in self
            .list(&keys, "propagation_chains", &path)
            .iter()
            .enumerate()
        {
            if let Some(chain) = self.chain(item, &chains.index(i)) {
                contract.chains.push(chain);
            }
        }
        let checkpoints = path.key("checkpoint_integrity");
        for (i, item) in self
            .list(&keys, "checkpoint_integrity", &path)
            .iter()
            .enumerate()
        {
            if let Some(spec) = self.checkpoint(item, &checkpoints.index(i)) {
                contract.checkpoints.push(spec);
            }
        }
        if let Some(node) = keys.present("graph_topology") {
            // An unreadable topology still counts as one whose edges are
            // unknown, so graph rules do not judge the declaration order.
            contract.topology = self
                .topology(node, &path.key("graph_topology"))
                .or_else(|| {
                    Some(GraphTopology {
                        span: node.span,
                        ..GraphTopology::default()
                    })
                });
        }
        contract.checkpoint_mode = self.enum_value(&keys, "checkpoint_mode", &path);
        if let Some(node) = keys.present("checkpoint_mode_authorization") {
            let here = path.key("checkpoint_mode_authorization");
            // Written but malformed is still written: the schema error
            // says what is wrong, and P402 (none written) stays silent.
            let mut authorization = Authorization {
                span: node.span,
                authorized_by: None,
                reason: None,
                trust_tier: None,
            };
            if let Some(auth) = self.mapping(node, &here, &AUTHORIZATION) {
                authorization.authorized_by = self.required_text(&auth, "authorized_by", &here);
                authorization.reason = self.required_text(&auth, "reason", &here);
                authorization.trust_tier = self.required_text(&auth, "trust_tier", &here);
            }
            contract.checkpoint_mode_authorization = Some(authorization);
        }
        contract.pipeline_inputs = self.field_path_list(&keys, "pipeline_inputs", &path);
        contract
    }

    fn phases(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Vec<Phase>> {
        let Some(entries) = node.as_mapping() else {
            self.wrong_type(node, path, "a mapping of phase names to phases");
            return None;
        };
        if let Some(over) = entries.get(crate::MAX_PHASES) {
            // Each phase costs its model, a node of the graph and its place
            // in every analysis: past the bound, none is built.
            self.report(crate::rules::schema::e007_unloadable_document::diagnostic(
                over.key.span,
                &format!(
                    "more than {} phases; phaselint does not read the phases of such a contract",
                    crate::MAX_PHASES
                ),
                crate::DocumentKind::Contract.noun(),
            )
            .with_help("split the pipeline into several contracts"));
            return None;
        }
        self.report_duplicates(entries, path);
        let mut phases: Vec<Phase> = Vec::with_capacity(entries.len());
        let mut index_of: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
        for entry in entries {
            let name = entry.key.text;
            let here = path.key(name);
            if name.trim().is_empty() {
                self.report(e004_wrong_type::invalid(
                    entry.key.span,
                    &path.to_string(),
                    "has a phase with an empty name",
                ));
                continue;
            }
            if name.len() > crate::MAX_NAME_BYTES {
                self.long_name(entry.key.span, name.len(), &here);
                continue;
            }
            let Some(phase) = self.phase(&entry, &here) else {
                continue;
            };
            // A duplicate keeps its first position and its last body, as a
            // Python dict does when PyYAML loads it.
            match index_of.get(name) {
                Some(&i) => phases[i] = phase,
                None => {
                    index_of.insert(name, phases.len());
                    phases.push(phase);
                }
            }
        }
        Some(phases)
    }

    /// Whether an E-code was reported since `before` (a count of them):
    /// the part built since then is incomplete.
    fn errors_since(&self, before: usize) -> bool {
        self.findings.errors() > before
    }

    fn phase(&mut self, entry: &Entry, path: &Path<'_>) -> Option<Phase> {
        let node = entry.value;
        if node.as_mapping().is_none() {
            self.wrong_type_under(node, Some(entry.key.span), path, "a mapping");
            return None;
        }
        let before_phase = self.findings.unsure();
        let keys = self.mapping(node, path, &PHASE)?;
        // An unknown or repeated key in the phase's body (a misspelled
        // `exits:`, a `...` placeholder, a second `exit:`) may hold fields
        // the model does not see: the field lists are then incomplete.
        let body_unsure = self.findings.unsure() > before_phase;
        let mut details = PhaseDetails {
            description: self.opt_string(&keys, "description", path),
            long_running: self.bool(&keys, "long_running", path),
            expected_duration: None,
            side_effects: self.enum_value(&keys, "side_effects", path),
            risk_class: self.enum_value(&keys, "risk_class", path),
        };
        // Returned to the walker once the phase is built; a phase given up
        // half-way takes it along, and the next starts a new one.
        let mut lists = std::mem::take(&mut self.phase_fields);
        let before_fields = self.findings.errors();
        if let Some(entry_node) = keys.present("entry") {
            let here = path.key("entry");
            if let Some(entry_keys) = self.mapping(entry_node, &here, &ENTRY) {
                self.fields(&entry_keys, "required", &here, &mut lists);
                lists.end_list();
                self.fields(&entry_keys, "enrichment", &here, &mut lists);
            }
        }
        while lists.lists_ended() < 2 {
            lists.end_list();
        }
        if let Some(exit_node) = keys.present("exit") {
            let here = path.key("exit");
            if let Some(exit_keys) = self.mapping(exit_node, &here, &EXIT) {
                self.fields(&exit_keys, "required", &here, &mut lists);
                lists.end_list();
                self.fields(&exit_keys, "optional", &here, &mut lists);
            }
        }
        let complete = !body_unsure && !self.errors_since(before_fields);
        if let Some(duration) = keys.present("expected_duration") {
            let here = path.key("expected_duration");
            let seconds = match duration.as_scalar().map(|s| s.resolve()) {
                Some(Resolved::Int(i)) => u64::try_from(i).ok(),
                Some(Resolved::Str(text)) => crate::duration::parse_seconds(text),
                _ => None,
            };
            match seconds {
                Some(s) => details.expected_duration = Some(Spanned::new(s, duration.span)),
                None => self.wrong_type(
                    duration,
                    &here,
                    "a duration such as `90s`, `15m`, `2h`, `1d` or whole seconds",
                ),
            }
        }
        let cost = std::mem::size_of::<Phase>()
            + heap(entry.key.text.len())
            + if details == PhaseDetails::default() {
                0
            } else {
                heap(std::mem::size_of::<PhaseDetails>())
            };
        if !self.charge(cost, node.span) {
            return None;
        }
        let phase = Phase::new(
            entry.key.text.to_string(),
            entry.key.span,
            node.span,
            complete,
            &mut lists,
            details,
        );
        self.phase_fields = lists;
        Some(phase)
    }

    fn fields(&mut self, keys: &Keys<'_>, key: &str, path: &Path<'_>, into: &mut PhaseFields) {
        let here = path.key(key);
        let items = self.list(keys, key, path);
        for (i, item) in items.iter().enumerate() {
            if let Some(field) = self.field(item, &here.index(i)) {
                into.push(field);
            }
        }
    }

    fn field(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Field> {
        let keys = self.mapping(node, path, &FIELD)?;
        let name = if keys.entry("name").is_some() {
            keys.value("name")
                .and_then(|n| self.field_path(n, &path.key("name")))
        } else {
            None
        };
        let field_type = keys.present("type").and_then(|node| {
            let text = self.text_in_place(&keys, "type", node, &path.key("type"))?;
            Some(Spanned::new(text, node.span))
        });
        let severity = self.enum_value(&keys, "severity", path);
        let description = self.opt_string(&keys, "description", path);
        let source_phase = match keys.present("source_phase") {
            Some(n) => self.name(n, &path.key("source_phase")),
            None => None,
        };
        let constraints = keys.present("constraints").and_then(|n| {
            if n.as_mapping().is_some() {
                Some(n.span)
            } else {
                self.wrong_type(n, &path.key("constraints"), "a mapping");
                None
            }
        });
        let quality = keys.present("quality").and_then(|n| {
            let here = path.key("quality");
            let q = self.mapping(n, &here, &QUALITY)?;
            Some(Quality {
                metric: self.opt_string(&q, "metric", &here),
                threshold: self.number(&q, "threshold", &here),
                on_below: self.enum_value(&q, "on_below", &here),
                description: self.opt_string(&q, "description", &here),
            })
        });
        let evaluation = keys.present("evaluation").and_then(|n| {
            let here = path.key("evaluation");
            let e = self.mapping(n, &here, &EVALUATION)?;
            Some(Evaluation {
                required: self.bool(&e, "required", &here),
                policy: self.opt_string(&e, "policy", &here),
                threshold: self.number(&e, "threshold", &here),
                evaluator: self.opt_string(&e, "evaluator", &here),
                on_unevaluated: self.enum_value(&e, "on_unevaluated", &here),
                on_below_threshold: self.enum_value(&e, "on_below_threshold", &here),
            })
        });
        // Only where a default is written: the resume check reads its
        // value from the file, and a null default is none.
        let default = keys.present("default").map(|n| n.span);
        let rare = FieldRare {
            default,
            constraints,
            quality,
            evaluation,
        };
        let rare = (rare != FieldRare::default()).then(|| Box::new(rare));
        // A type of up to 24 bytes is kept inline.
        if let Some(t) = &field_type
            && t.value.len() <= 24
        {
            self.model_bytes -= heap(t.value.len());
        }
        let details = FieldDetails {
            field_type: field_type.map(|t| Spanned::new(t.value.into(), t.span)),
            description,
            source_phase,
            rare,
        };
        let name = name?;
        let mut cost = std::mem::size_of::<Field>();
        if details != FieldDetails::default() {
            cost += heap(std::mem::size_of::<FieldDetails>())
                + details
                    .rare
                    .as_ref()
                    .map_or(0, |_| heap(std::mem::size_of::<FieldRare>()));
        }
        if !self.charge(cost, node.span) {
            return None;
        }
        Some(Field::new(name, node.span, severity, details))
    }

    fn endpoint(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Endpoint> {
        let keys = self.mapping(node, path, &ENDPOINT)?;
        let phase = self.required_string(&keys, "phase", path);
        let field = if keys.entry("field").is_some() {
            keys.value("field")
                .and_then(|n| self.field_path(n, &path.key("field")))
        } else {
            None
        };
        if !self.charge(std::mem::size_of::<Endpoint>(), node.span) {
            return None;
        }
        Some(Endpoint {
            phase,
            field,
            span: node.span,
        })
    }

    fn chain(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<Chain> {
        let keys = self.mapping(node, path, &CHAIN)?;
        let chain_id = self.required_string(&keys, "chain_id", path);
        let source = if keys.entry("source").is_some() {
            keys.value("source")
                .and_then(|n| self.endpoint(n, &path.key("source")))
        } else {
            None
        };
        let here = path.key("waypoints");
        let waypoints = self
            .list(&keys, "waypoints", path)
            .iter()
            .enumerate()
            .filter_map(|(i, n)| self.endpoint(n, &here.index(i)))
            .collect();
        let destination = if keys.entry("destination").is_some() {
            keys.value("destination")
                .and_then(|n| self.endpoint(n, &path.key("destination")))
        } else {
            None
        };
        if !self.charge(std::mem::size_of::<Chain>(), node.span) {
            return None;
        }
        Some(Chain {
            chain_id,
            span: node.span,
            description: self.opt_string(&keys, "description", path),
            source,
            waypoints,
            destination,
            severity: self.enum_value(&keys, "severity", path),
            verification: self.opt_string(&keys, "verification", path),
        })
    }

    fn checkpoint(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<CheckpointSpec> {
        let keys = self.mapping(node, path, &CHECKPOINT)?;
        let checkpoint_id = self.required_string(&keys, "checkpoint_id", path);
        let phase = self.required_string(&keys, "phase", path);
        let mut on_resume = OnResume::default();
        if let Some(n) = keys.present("on_resume") {
            let here = path.key("on_resume");
            if let Some(r) = self.mapping(n, &here, &ON_RESUME) {
                on_resume.span = Some(n.span);
                on_resume.revalidate_entry = self.bool(&r, "revalidate_entry", &here);
                on_resume.approval_required = self.bool(&r, "approval_required", &here);
                on_resume.approval_policy = self.enum_value(&r, "approval_policy", &here);
                let checks = here.key("staleness_checks");
                for (i, item) in self.list(&r, "staleness_checks", &here).iter().enumerate() {
                    if let Some(check) = self.staleness_check(item, &checks.index(i)) {
                        on_resume.staleness_checks.push(check);
                    }
                }
            }
        }
        if !self.charge(std::mem::size_of::<CheckpointSpec>(), node.span) {
            return None;
        }
        Some(CheckpointSpec {
            checkpoint_id,
            phase,
            span: node.span,
            on_resume,
        })
    }

    fn staleness_check(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<StalenessCheck> {
        let keys = self.mapping(node, path, &STALENESS)?;
        let field = if keys.entry("field").is_some() {
            keys.value("field")
                .and_then(|n| self.field_path(n, &path.key("field")))
        } else {
            None
        };
        let max_age_seconds = if keys.entry("max_age_seconds").is_some() {
            match keys.value("max_age_seconds") {
                Some(n) if n.is_null() => {
                    self.wrong_type(
                        n,
                        &path.key("max_age_seconds"),
                        "an integer number of seconds",
                    );
                    None
                }
                _ => self.int(&keys, "max_age_seconds", path),
            }
        } else {
            None
        };
        if !self.charge(std::mem::size_of::<StalenessCheck>(), node.span) {
            return None;
        }
        Some(StalenessCheck {
            field,
            span: node.span,
            max_age_seconds,
            on_stale: self.enum_value(&keys, "on_stale", path),
            recovery: self.enum_value(&keys, "recovery", path),
            description: self.opt_string(&keys, "description", path),
        })
    }

    fn topology(&mut self, node: Node<'_>, path: &Path<'_>) -> Option<GraphTopology> {
        let keys = self.mapping(node, path, &TOPOLOGY)?;
        let mut topology = GraphTopology {
            span: node.span,
            graph_id: self.opt_string(&keys, "graph_id", path),
            description: self.opt_string(&keys, "description", path),
            ..GraphTopology::default()
        };
        if let Some(nodes) = keys.present("nodes") {
            let here = path.key("nodes");
            match nodes.as_mapping() {
                Some(entries) => {
                    self.report_duplicates(entries, &here);
                    for entry in entries {
                        let node_path = here.key(entry.key.text);
                        if entry.key.text.len() > crate::MAX_NAME_BYTES {
                            self.long_name(entry.key.span, entry.key.text.len(), &node_path);
                            continue;
                        }
                        let id = Spanned::new(entry.key.text.to_string(), entry.key.span);
                        let mut topology_node = TopologyNode {
                            id,
                            requires: Vec::new(),
                            produces: Vec::new(),
                            optional: Vec::new(),
                            description: None,
                        };
                        if !entry.value.is_null()
                            && let Some(k) = self.mapping(entry.value, &node_path, &TOPOLOGY_NODE)
                        {
                            topology_node.requires =
                                self.field_path_list(&k, "requires", &node_path);
                            topology_node.produces =
                                self.field_path_list(&k, "produces", &node_path);
                            topology_node.optional =
                                self.field_path_list(&k, "optional", &node_path);
                            topology_node.description =
                                self.opt_string(&k, "description", &node_path);
                        }
                        if self.charge(std::mem::size_of::<TopologyNode>(), entry.key.span) {
                            topology.nodes.push(topology_node);
                        }
                    }
                }
                None => self.wrong_type(nodes, &here, "a mapping of node ids"),
            }
        }
        let edges = path.key("edges");
        let before_edges = self.findings.errors();
        for (i, item) in self.list(&keys, "edges", path).iter().enumerate() {
            let here = edges.index(i);
            let Some(k) = self.mapping(item, &here, &EDGE) else {
                continue;
            };
            let from = self.required_string(&k, "from", &here);
            let to = self.required_string(&k, "to", &here);
            let preserves = k
                .present("preserves")
                .map(|_| self.field_path_list(&k, "preserves", &here));
            if !self.charge(std::mem::size_of::<TopologyEdge>(), item.span) {
                continue;
            }
            topology.edges.push(TopologyEdge {
                span: item.span,
                from,
                to,
                condition: self.opt_string(&k, "condition", &here),
                preserves,
                drops: self.field_path_list(&k, "drops", &here),
                description: self.opt_string(&k, "description", &here),
            });
        }
        topology.edges_complete = !self.errors_since(before_edges);
        let merges = path.key("merge_points");
        for (i, item) in self.list(&keys, "merge_points", path).iter().enumerate() {
            let here = merges.index(i);
            let Some(k) = self.mapping(item, &here, &MERGE_POINT) else {
                continue;
            };
            let node_name = self.required_string(&k, "node", &here);
            let sources = if k.entry("sources").is_some() {
                self.string_list(&k, "sources", &here)
            } else {
                Vec::new()
            };
            let mut merge_policy = Vec::new();
            if let Some(policy) = k.present("merge_policy") {
                let policy_path = here.key("merge_policy");
                match policy.as_mapping() {
                    Some(entries) => {
                        self.report_duplicates(entries, &policy_path);
                        for entry in entries {
                            let field_path = policy_path.key(entry.key.text);
                            if entry.key.text.len() > crate::MAX_NAME_BYTES {
                                self.long_name(entry.key.span, entry.key.text.len(), &field_path);
                                continue;
                            }
                            if let Some(value) =
                                self.enum_node::<MergePolicy>(entry.value, &field_path)
                            {
                                merge_policy.push((
                                    Spanned::new(entry.key.text.to_string(), entry.key.span),
                                    value,
                                ));
                            }
                        }
                    }
                    None => self.wrong_type(
                        policy,
                        &policy_path,
                        "a mapping of field names to merge policies",
                    ),
                }
            }
            let cost = std::mem::size_of::<MergePoint>()
                + merge_policy.len()
                    * std::mem::size_of::<(Spanned<String>, Spanned<MergePolicy>)>();
            if !self.charge(cost, item.span) {
                continue;
            }
            topology.merge_points.push(MergePoint {
                span: item.span,
                node: node_name,
                sources,
                merge_policy,
            });
        }
        let cycles = path.key("cycle_invariants");
        for (i, item) in self
            .list(&keys, "cycle_invariants", path)
            .iter()
            .enumerate()
        {
            let here = cycles.index(i);
            let Some(k) = self.mapping(item, &here, &CYCLE_INVARIANT) else {
                continue;
            };
            let cycle_id = self.required_string(&k, "cycle_id", &here);
            let nodes = if k.entry("nodes").is_some() {
                self.string_list(&k, "nodes", &here)
            } else {
                Vec::new()
            };
            let max_iterations = self.int(&k, "max_iterations", &here);
            if let Some(max) = &max_iterations
                && max.value < 1
            {
                self.report(e004_wrong_type::invalid(
                    max.span,
                    &here.key("max_iterations").to_string(),
                    "must be at least 1",
                ));
            }
            if !self.charge(std::mem::size_of::<CycleInvariant>(), item.span) {
                continue;
            }
            topology.cycle_invariants.push(CycleInvariant {
                span: item.span,
                cycle_id,
                nodes,
                max_iterations,
                invariant_fields: self.field_path_list(&k, "invariant_fields", &here),
                description: self.opt_string(&k, "description", &here),
            });
        }
        Some(topology)
    }
}
