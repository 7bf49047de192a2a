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

#[cfg(test)]
mod tests {
    use super::*;

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
