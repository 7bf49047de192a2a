//! The format's enumerations: closed sets of lower-case values, each with
//! what it means. The tables declare which key takes which, and typed
//! defaults of them; the model re-exports them.

/// A closed set of lower-case values read in any case, so the model is right
/// even where S002 reports the spelling.
pub trait EnumValue: Sized + Copy + 'static {
    /// What the value is called in messages ("severity").
    const WHAT: &'static str;
    /// Each value with its canonical spelling and what it means.
    const ALL: &'static [(&'static str, Self, &'static str)];

    fn parse_canonical(text: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(name, _, _)| *name == text)
            .map(|&(_, v, _)| v)
    }

    fn as_str(self) -> &'static str;
}

macro_rules! enum_value {
    ($(#[$meta:meta])* $name:ident, $what:literal, { $($variant:ident = $text:literal => $doc:literal),+ $(,)? }) => {
        $(#[$meta])*
        // Ordered as declared: risk classes and side-effect classes are
        // compared (low < medium < high < critical, none < reversible <
        // irreversible).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name { $($variant),+ }

        impl EnumValue for $name {
            const WHAT: &'static str = $what;
            const ALL: &'static [(&'static str, Self, &'static str)] = &[$(($text, $name::$variant, $doc)),+];

            fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        // In reports (the resume check's JSON), as the contract writes it.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}

enum_value!(
    /// How much a missing or stale field matters.
    FieldSeverity, "severity", {
        Blocking = "blocking" => "Missing or stale blocks the phase (or the resume).",
        Warning = "warning" => "Missing or stale is reported; a declared default is used and the run goes on.",
        Advisory = "advisory" => "Only noted; never blocks and never triggers recovery.",
    }
);
enum_value!(Recovery, "recovery strategy", {
    ReRetrieve = "re_retrieve" => "Fetch the field again from its source before resuming.",
    ReGenerate = "re_generate" => "Produce the field again (re-run the generating step) before resuming.",
    LogAndContinue = "log_and_continue" => "Record that the field is stale and resume with it as it is.",
    Fail = "fail" => "Never resume past a stale value: the resume is always blocked.",
});
enum_value!(ApprovalPolicy, "approval policy", {
    Human = "human" => "A person must approve the resume.",
    Orchestrator = "orchestrator" => "The orchestrator (an automated approver) must approve the resume.",
    HumanOrOrchestrator = "human_or_orchestrator" => "Either a person or the orchestrator may approve.",
    AutoIfFresh = "auto_if_fresh" => "Granted automatically when nothing blocking is stale; otherwise an approval is needed.",
});
enum_value!(SideEffects, "side-effect class", {
    None = "none" => "The phase changes nothing outside the run.",
    Reversible = "reversible" => "The phase changes the outside world in a way that can be undone.",
    Irreversible = "irreversible" => "The phase changes the outside world for good; resuming into it needs human approval.",
});
enum_value!(RiskClass, "risk class", {
    Low = "low" => "Low risk.",
    Medium = "medium" => "Medium risk.",
    High = "high" => "High risk: entering it should pass an approval gate.",
    Critical = "critical" => "Critical risk: entering it should pass an approval gate.",
});
enum_value!(CheckpointMode, "checkpoint mode", {
    Always = "always" => "Checkpoint after every phase.",
    Policy = "policy" => "Checkpoint where checkpoint_integrity says (the default).",
    Never = "never" => "Never checkpoint: a policy override that needs checkpoint_mode_authorization.",
});
enum_value!(MergePolicy, "merge policy", {
    RequiredFromAny = "required_from_any" => "The field must arrive from at least one incoming branch.",
    RequiredFromAll = "required_from_all" => "The field must arrive from every incoming branch.",
    PreferLatest = "prefer_latest" => "Take the value from the branch that finished last.",
    UnionAll = "union_all" => "Combine the values of all branches.",
});
