//! "Did you mean" suggestions for names that are close to a valid one.

/// Names longer than this get no suggestion: the edit distance costs the
/// product of the two lengths, and nobody mistypes a 200-character name.
const LONGEST_NAME: usize = 128;

/// How many suggestions one rule makes in one file. Each compares a name
/// with every candidate (every phase, every produced field); past this
/// many, a broken generated contract would make the rule quadratic, so
/// later findings go without.
pub(crate) const SUGGESTIONS_PER_RULE: usize = 50;

/// Suggestions under the per-rule budget.
pub(crate) struct Suggester {
    left: usize,
}

impl Suggester {
    pub(crate) fn new() -> Self {
        Suggester {
            left: SUGGESTIONS_PER_RULE,
        }
    }

    /// Whether the budget allows one more suggestion (counting it).
    pub(crate) fn take(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }

    /// `closest`, while the budget lasts.
    pub(crate) fn closest<'a>(
        &mut self,
        name: &str,
        candidates: impl IntoIterator<Item = &'a str>,
    ) -> Option<&'a str> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        closest(name, candidates)
    }
}

/// The candidate closest to `name`, if it is close enough to be a likely
/// typo and no other candidate is as close: a tie is a coin toss, and a
/// guess offered as a fix (and preferred in the editor) must not be one.
pub(crate) fn closest<'a, I>(name: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    if name.len() > LONGEST_NAME {
        return None;
    }
    let lowered = name.to_ascii_lowercase();
    let name_chars = name.chars().count();
    let mut best: Option<(usize, &'a str)> = None;
    let mut tied = false;
    for candidate in candidates {
        if candidate == name || candidate.len() > LONGEST_NAME {
            continue;
        }
        let candidate_chars = candidate.chars().count();
        let allowed = (candidate_chars.max(name_chars) / 3).max(1);
        let prefix_match = candidate.len() >= 4
            && (lowered.starts_with(candidate) || candidate.starts_with(lowered.as_str()));
        // The distance is at least the difference in length: most
        // candidates are ruled out without computing it.
        if !prefix_match && candidate_chars.abs_diff(name_chars) > allowed {
            continue;
        }
        // Optimal string alignment: transpositions count as one edit like
        // Damerau-Levenshtein, without its per-call hash map.
        let distance = strsim::osa_distance(&lowered, &candidate.to_ascii_lowercase());
        if distance <= allowed || prefix_match {
            let score = if prefix_match {
                distance.min(allowed)
            } else {
                distance
            };
            match best {
                Some((d, _)) if score > d => {}
                Some((d, other)) if score == d => tied |= other != candidate,
                _ => {
                    best = Some((score, candidate));
                    tied = false;
                }
            }
        }
    }
    if tied {
        return None;
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn a_tie_is_no_suggestion() {
        // `draft` is one edit from both: no guess.
        assert_eq!(closest("draft", ["drafts", "drift"]), None);
        // The same name twice (declared by two phases) is no tie.
        assert_eq!(closest("drafft", ["draft", "draft"]), Some("draft"));
        // A closer candidate after a tie wins.
        assert_eq!(
            closest("draftzz", ["draftxx", "draftyy", "draftz"]),
            Some("draftz")
        );
    }

    #[test]
    fn typos_and_prefixes() {
        let keys = ["required", "optional"];
        assert_eq!(closest("requried", keys), Some("required"));
        assert_eq!(closest("optinal", keys), Some("optional"));
        assert_eq!(closest("advisory", keys), None);
        assert_eq!(
            closest("retrieve", ["retrieval", "generate"]),
            Some("retrieval")
        );
        assert_eq!(closest("x", ["generate"]), None);
    }
}
