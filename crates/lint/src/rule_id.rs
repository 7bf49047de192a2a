//! A rule's code as a type: what kind of finding a code is (it cannot be
//! loaded, it breaks the format, which family) is asked of the code, never
//! read off its first letter at the call site.

use std::fmt;

/// A rule code: one capital letter and three digits (`E001`, `P405`).
/// Every `RuleId` comes from a rule's declaration or from the registry, so
/// it names a rule that exists.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(&'static str);

impl RuleId {
    /// A code as a rule declares it. A malformed code fails the build: rule
    /// declarations are statics, evaluated at compile time.
    pub const fn new(code: &'static str) -> RuleId {
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

    /// The file cannot be loaded (E001, E007): such a finding is always on,
    /// never suppressed, and the file never passes.
    pub fn is_load_error(self) -> bool {
        matches!(self.0, "E001" | "E007")
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
