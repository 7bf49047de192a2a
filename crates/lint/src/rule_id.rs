//! A rule's code as a type: what kind of finding a code is (it cannot be
//! loaded, it breaks the format, which family, whether a comment can
//! silence it) is asked of the code, never read off its first letter at
//! the call site. The findings sink and the suppression comments read these
//! facts here, below the rule registry, whose checks write to the sink.

use std::fmt;

/// A rule code: one capital letter and three digits (`E001`, `P405`).
/// Every `RuleId` comes from a rule's declaration or from the registry, so
/// it names a rule that exists.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(&'static str);

impl RuleId {
    /// E001: the file is not YAML.
    pub(crate) const YAML_SYNTAX_ERROR: RuleId = RuleId::new("E001");
    /// E007: the file cannot be loaded, or has more findings than are kept.
    pub(crate) const UNLOADABLE_DOCUMENT: RuleId = RuleId::new("E007");
    /// S001: a suppression comment that silenced nothing.
    pub(crate) const UNUSED_SUPPRESSION: RuleId = RuleId::new("S001");

    /// A code as a rule declares it. A malformed code fails the build: rule
    /// declarations are statics, evaluated at compile time.
    pub(crate) const fn new(code: &'static str) -> RuleId {
        let bytes = code.as_bytes();
        assert!(
            bytes.len() == 4
                && bytes[0].is_ascii_uppercase()
                && bytes[1].is_ascii_digit()
                && bytes[2].is_ascii_digit()
                && bytes[3].is_ascii_digit(),
            "a rule code is one capital letter and three digits"
        );
        RuleId(code)
    }

    pub const fn as_str(self) -> &'static str {
        self.0
    }

    /// The code's letter: what the configuration's prefixes (`E`, `G3`)
    /// and the families are spelled with.
    const fn letter(self) -> u8 {
        self.0.as_bytes()[0]
    }

    /// `==` for a `const fn`: `&str` has no const equality.
    const fn same(self, other: RuleId) -> bool {
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The file cannot be loaded (E001, E007): such a finding is always on,
    /// never suppressed, its level is error, and the file never passes.
    pub(crate) const fn is_load_error(self) -> bool {
        self.same(RuleId::YAML_SYNTAX_ERROR) || self.same(RuleId::UNLOADABLE_DOCUMENT)
    }

    /// A suppression comment can silence a finding of this code: not a
    /// load error (a file that cannot be loaded never passes), not S001
    /// (whose fix removes the comment), not a diff code (about two files,
    /// not a line).
    pub const fn can_be_suppressed(self) -> bool {
        !self.is_load_error() && !self.same(RuleId::UNUSED_SUPPRESSION) && !self.is_diff()
    }

    /// The document breaks the format (an E-code, load errors included):
    /// what the resume check refuses a contract for.
    pub const fn is_schema_error(self) -> bool {
        self.letter() == b'E'
    }

    /// A code of `phaselint diff` (D6xx), never reported by a lint run.
    pub const fn is_diff(self) -> bool {
        self.letter() == b'D'
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, not `write_str`: tables align codes with `{:<6}`.
        f.pad(self.0)
    }
}

impl fmt::Debug for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<RuleId> for &str {
    fn eq(&self, other: &RuleId) -> bool {
        *self == other.0
    }
}

/// Lets a map keyed by codes be asked with the text of one (a code read
/// from a comment or a configuration file).
impl std::borrow::Borrow<str> for RuleId {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl serde::Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::RuleId;

    #[test]
    fn the_kind_of_a_code_is_asked_of_the_code() {
        assert!(RuleId::new("E001").is_load_error());
        assert!(RuleId::new("E007").is_load_error());
        assert!(!RuleId::new("E004").is_load_error());
        assert!(RuleId::new("E004").is_schema_error());
        assert!(!RuleId::new("S002").is_schema_error());
        assert!(RuleId::new("D601").is_diff());
        assert!(!RuleId::new("P405").is_diff());
        assert!(RuleId::new("G303").can_be_suppressed());
        assert!(RuleId::new("E004").can_be_suppressed());
        assert!(!RuleId::UNLOADABLE_DOCUMENT.can_be_suppressed());
        assert!(!RuleId::YAML_SYNTAX_ERROR.can_be_suppressed());
        assert!(!RuleId::UNUSED_SUPPRESSION.can_be_suppressed());
        assert!(!RuleId::new("D601").can_be_suppressed());
    }

    #[test]
    fn a_code_reads_and_serializes_as_its_text() {
        let code = RuleId::new("G303");
        assert_eq!(code.to_string(), "G303");
        assert_eq!(format!("[{code:<6}]"), "[G303  ]");
        assert_eq!(format!("{code:?}"), "\"G303\"");
        assert_eq!(
            serde_json::to_string(&code).ok().as_deref(),
            Some("\"G303\"")
        );
        assert!(code == "G303");
    }
}
