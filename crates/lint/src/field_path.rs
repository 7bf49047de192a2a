//! Dotted field names (SPEC §2.2): `domain_summary.domain`, `tasks.*.id`.
//! A declared field covers its dotted sub-paths, and a `*` segment matches
//! any one segment.

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldPath(String);

impl FieldPath {
    pub fn new(text: impl Into<String>) -> Self {
        FieldPath(text.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('.')
    }

    /// Whether declaring `self` declares `other`: `other` is `self` or one of
    /// its sub-paths, segment by segment, with `*` matching any segment.
    pub fn covers(&self, other: &FieldPath) -> bool {
        let mut theirs = other.segments();
        for mine in self.segments() {
            match theirs.next() {
                Some(seg) if seg == mine || seg == "*" || mine == "*" => {}
                _ => return false,
            }
        }
        true
    }

    /// Whether either path covers the other: reading `a` reads `a.b`, and
    /// reading `a.b` reads part of `a`.
    pub fn overlaps(&self, other: &FieldPath) -> bool {
        self.covers(other) || other.covers(self)
    }
}

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> FieldPath {
        FieldPath::new(s)
    }

    #[test]
    fn sub_paths_and_wildcards() {
        assert!(p("domain_summary").covers(&p("domain_summary.domain")));
        assert!(!p("domain_summary.domain").covers(&p("domain_summary")));
        assert!(p("tasks.*.id").covers(&p("tasks.t1.id")));
        assert!(p("tasks.t1").covers(&p("tasks.*.id")));
        assert!(!p("domain").covers(&p("domain_summary")));
        assert!(p("a.b").overlaps(&p("a")));
    }
}
