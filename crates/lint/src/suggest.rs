//! "Did you mean" suggestions for names that are close to a valid one.

/// The candidate closest to `name`, if it is close enough to be a likely typo.
pub fn closest<'a, I>(name: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let lowered = name.to_ascii_lowercase();
    let name_chars = name.chars().count();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        if candidate == name {
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
            if best.is_none_or(|(d, _)| score < d) {
                best = Some((score, candidate));
            }
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

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
