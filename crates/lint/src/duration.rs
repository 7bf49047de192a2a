//! Durations as contracts and configs write them: `90s`, `15m`, `2h`, `1d`,
//! or a bare number of seconds.

/// Parses a duration into whole seconds; `None` if it is not one.
pub fn parse_seconds(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    if digits.is_empty() {
        return None;
    }
    let value: u64 = digits.parse().ok()?;
    let factor = match unit.trim() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return None,
    };
    value.checked_mul(factor)
}

/// Formats seconds the way a person would write them back.
pub fn format_seconds(seconds: u64) -> String {
    match seconds {
        s if s != 0 && s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s != 0 && s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s != 0 && s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// An age as every resume report writes it: its two largest units, the
/// smaller one even when it is zero, so ages line up and read alike
/// (`45s old`, `59m 59s old`, `3h 5m old`, `269d 0h old`); a negative age
/// is `… in the future`. The smaller unit is cut, not rounded: an age is
/// at least what it says.
pub fn format_age(seconds: i64) -> String {
    let magnitude = two_units(seconds.unsigned_abs());
    if seconds < 0 {
        format!("{magnitude} in the future")
    } else {
        format!("{magnitude} old")
    }
}

/// [`format_age`] for an age compared with `limit` seconds in the same
/// sentence: where the cut would make the two read alike ("1h 0m old,
/// older than 1h"), the age is written in whole seconds instead.
pub(crate) fn format_age_beside(seconds: i64, limit: u64) -> String {
    let magnitude = seconds.unsigned_abs();
    if magnitude != limit && two_units(magnitude) == two_units(limit) {
        let direction = if seconds < 0 { "in the future" } else { "old" };
        format!("{magnitude}s {direction}")
    } else {
        format_age(seconds)
    }
}

fn two_units(seconds: u64) -> String {
    const MINUTE: u64 = 60;
    const HOUR: u64 = 3_600;
    const DAY: u64 = 86_400;
    match seconds {
        s if s >= DAY => format!("{}d {}h", s / DAY, s % DAY / HOUR),
        s if s >= HOUR => format!("{}h {}m", s / HOUR, s % HOUR / MINUTE),
        s if s >= MINUTE => format!("{}m {}s", s / MINUTE, s % MINUTE),
        s => format!("{s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_at_each_unit_boundary() {
        assert_eq!(format_age(0), "0s old");
        assert_eq!(format_age(59), "59s old");
        assert_eq!(format_age(60), "1m 0s old");
        assert_eq!(format_age(3_599), "59m 59s old");
        assert_eq!(format_age(3_600), "1h 0m old");
        assert_eq!(format_age(3_600 * 3 + 5 * 60 + 59), "3h 5m old");
        assert_eq!(format_age(86_399), "23h 59m old");
        assert_eq!(format_age(86_400), "1d 0h old");
        assert_eq!(format_age(269 * 86_400 + 3_599), "269d 0h old");
        assert_eq!(format_age(-45), "45s in the future");
        assert_eq!(format_age(-3_600), "1h 0m in the future");
        assert_eq!(format_age(i64::MIN), "106751991167300d 15h in the future");
    }

    #[test]
    fn an_age_beside_its_limit_never_reads_as_the_limit() {
        assert_eq!(format_age_beside(3_601, 3_600), "3601s old");
        assert_eq!(format_age_beside(3_600, 3_600), "1h 0m old");
        assert_eq!(format_age_beside(7_200, 3_600), "2h 0m old");
        assert_eq!(format_age_beside(-90, 60), "1m 30s in the future");
        assert_eq!(format_age_beside(-3_630, 3_600), "3630s in the future");
    }

    #[test]
    fn units() {
        assert_eq!(parse_seconds("90s"), Some(90));
        assert_eq!(parse_seconds("15m"), Some(900));
        assert_eq!(parse_seconds("2h"), Some(7_200));
        assert_eq!(parse_seconds("1d"), Some(86_400));
        assert_eq!(parse_seconds("42"), Some(42));
        assert_eq!(parse_seconds("m"), None);
        assert_eq!(parse_seconds("5 weeks"), None);
        assert_eq!(parse_seconds("99999999999999999999d"), None);
        assert_eq!(format_seconds(900), "15m");
    }
}
