//! How the text of a document's last parsable version maps into its
//! current text, kept from the edits `didChange` applied since. While a line
//! is half typed, the server answers from the last analysis that parsed:
//! its findings and answers are carried into the current text through this
//! map, and a request's position is carried back.
//!
//! The map is the list of regions the edits replaced, coalesced: an edit
//! touching a region (typing on, next to, or over it) merges into it, so
//! typing a phase one key at a time is one region however many keystrokes
//! it took. Outside the regions the two texts are the same characters,
//! shifted. Past `MAX_REGIONS` separate regions the map gives up
//! (`is_lost`): nothing is carried rather than a map that grows without
//! bound. (A whole text sent for a change arrives here as the bytes that
//! differ: `text::apply_changes`.)

/// The most separate changed regions kept; more and the map gives up.
pub const MAX_REGIONS: usize = 256;

/// One replaced region: `old` in the old text became `new` in the
/// current text (half-open byte ranges).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Region {
    old_start: usize,
    old_end: usize,
    new_start: usize,
    new_end: usize,
}

impl Region {
    /// How much longer the text got here.
    fn growth(&self) -> isize {
        (self.new_end - self.new_start) as isize - (self.old_end - self.old_start) as isize
    }
}

/// Which end of a span an offset is: an insertion exactly at a span's start
/// leaves the span after it; at its end, before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Start,
    End,
}

#[derive(Clone, Debug, Default)]
pub struct EditMap {
    /// Sorted and disjoint in both texts.
    regions: Vec<Region>,
    lost: bool,
}

fn shifted(offset: usize, by: isize) -> usize {
    offset.saturating_add_signed(by)
}

impl EditMap {
    /// Whether too much changed to carry anything.
    pub fn is_lost(&self) -> bool {
        self.lost
    }

    /// Gives up: the map is too large.
    pub fn lose(&mut self) {
        self.lost = true;
        self.regions = Vec::new();
    }

    /// Records that the current text's bytes `start..end` were replaced by
    /// `inserted` bytes.
    pub fn record(&mut self, start: usize, end: usize, inserted: usize) {
        if self.lost || (start == end && inserted == 0) {
            return;
        }
        let end = end.max(start);
        // The regions this edit touches (overlaps or is adjacent to), in
        // current-text coordinates: `first..last`.
        let first = self.regions.partition_point(|r| r.new_end < start);
        let last = first + self.regions[first..].partition_point(|r| r.new_start <= end);
        // The growth of every region before the edit.
        let before: isize = self.regions[..first].iter().map(Region::growth).sum();
        let touched: isize = self.regions[first..last].iter().map(Region::growth).sum();
        let merged_new_start = self.regions[first..last]
            .first()
            .map_or(start, |r| r.new_start.min(start));
        let merged_new_end = self.regions[first..last]
            .last()
            .map_or(end, |r| r.new_end.max(end));
        let old_start = match self.regions[first..last].first() {
            Some(r) if r.new_start <= start => r.old_start,
            _ => shifted(start, -before),
        };
        let old_end = match self.regions[first..last].last() {
            Some(r) if r.new_end >= end => r.old_end,
            _ => shifted(end, -(before + touched)),
        };
        let growth = inserted as isize - (end - start) as isize;
        let region = Region {
            old_start,
            old_end,
            new_start: merged_new_start,
            new_end: shifted(merged_new_end, growth),
        };
        for later in &mut self.regions[last..] {
            later.new_start = shifted(later.new_start, growth);
            later.new_end = shifted(later.new_end, growth);
        }
        // A region whose text is gone on both sides changes nothing.
        let region = (region.old_start < region.old_end || region.new_start < region.new_end)
            .then_some(region);
        self.regions.splice(first..last, region);
        if self.regions.len() > MAX_REGIONS {
            self.lose();
        }
    }

    /// Where an offset of the old text is in the current text; `None` when
    /// it is inside a replaced region, or the map is lost.
    pub fn to_current(&self, offset: usize, side: Side) -> Option<usize> {
        self.carry(offset, side, false)
    }

    /// Like `to_current`, but an offset inside a replaced region goes to
    /// the region's start (`Side::Start`) or end (`Side::End`): where a
    /// span that held the region now starts or ends. `None` only when the
    /// map is lost.
    pub fn to_current_around(&self, offset: usize, side: Side) -> Option<usize> {
        self.carry(offset, side, true)
    }

    fn carry(&self, offset: usize, side: Side, around: bool) -> Option<usize> {
        if self.lost {
            return None;
        }
        let mut growth = 0isize;
        for r in &self.regions {
            if offset < r.old_start {
                break;
            }
            if offset == r.old_start && offset == r.old_end {
                // An insertion right here.
                return Some(match side {
                    Side::Start => r.new_end,
                    Side::End => r.new_start,
                });
            }
            if offset == r.old_start {
                return Some(r.new_start);
            }
            if offset == r.old_end {
                return Some(r.new_end);
            }
            if offset < r.old_end {
                return around.then_some(match side {
                    Side::Start => r.new_start,
                    Side::End => r.new_end,
                });
            }
            growth += r.growth();
        }
        Some(shifted(offset, growth))
    }

    /// A span of the old text in the current text, if none of its
    /// characters (nor the gap between two of them) was replaced.
    pub fn span_to_current(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        if self.lost {
            return None;
        }
        let touched = self.regions.iter().any(|r| {
            if start == end {
                r.old_start < start && start < r.old_end
            } else if r.old_start == r.old_end {
                start < r.old_start && r.old_start < end
            } else {
                start < r.old_end && r.old_start < end
            }
        });
        if touched {
            return None;
        }
        let new_start = self.to_current(start, Side::Start)?;
        if start == end {
            return Some((new_start, new_start));
        }
        let new_end = self.to_current(end, Side::End)?;
        Some((new_start, new_end.max(new_start)))
    }

    /// Where an offset of the current text was in the old text; `None`
    /// inside a region that was replaced, or when the map is lost.
    pub fn to_old(&self, offset: usize) -> Option<usize> {
        if self.lost {
            return None;
        }
        let mut growth = 0isize;
        for r in &self.regions {
            if offset < r.new_start {
                break;
            }
            if offset == r.new_start && r.new_start < r.new_end {
                return Some(r.old_start);
            }
            if offset == r.new_end {
                return Some(r.old_end);
            }
            if offset < r.new_end {
                return None;
            }
            growth += r.growth();
        }
        Some(shifted(offset, -growth))
    }

    /// The current text's ranges that replaced something, in order.
    pub fn changed(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.regions.iter().map(|r| (r.new_start, r.new_end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Applies an edit to the text and to a per-byte record of where each
    /// byte of the current text came from (`Some(old offset)`, `None` for
    /// an inserted one): the ground truth the map is checked against.
    fn edit(
        text: &mut Vec<u8>,
        origin: &mut Vec<Option<usize>>,
        start: usize,
        end: usize,
        with: &[u8],
    ) {
        text.splice(start..end, with.iter().copied());
        origin.splice(start..end, with.iter().map(|_| None));
    }

    #[test]
    fn offsets_outside_edited_regions_map_to_the_same_character() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for case in 0..4000 {
            let old: Vec<u8> = (0..rng.below(80))
                .map(|_| b"ab\n :"[rng.below(5)])
                .collect();
            let mut text = old.clone();
            let mut origin: Vec<Option<usize>> = (0..old.len()).map(Some).collect();
            let mut map = EditMap::default();
            let edits = 1 + rng.below(if case % 10 == 0 { 400 } else { 12 });
            for _ in 0..edits {
                // Mostly keystrokes near one place, sometimes anywhere.
                let start = rng.below(text.len() + 1);
                let longest = if rng.below(3) == 0 { 6 } else { 1 };
                let end = (start + rng.below(longest)).min(text.len());
                let with: Vec<u8> = (0..rng.below(4)).map(|_| b"xy\n"[rng.below(3)]).collect();
                edit(&mut text, &mut origin, start, end, &with);
                map.record(start, end, with.len());
            }
            if map.is_lost() {
                continue;
            }
            // Every byte that survived maps there and back.
            for (current, from) in origin.iter().enumerate() {
                let Some(old_offset) = *from else { continue };
                let in_region = map
                    .regions
                    .iter()
                    .any(|r| r.new_start <= current && current < r.new_end);
                if in_region {
                    // A region may hold bytes an edit left alone
                    // (coalescing); they are simply not carried.
                    continue;
                }
                assert_eq!(
                    map.to_current(old_offset, Side::Start),
                    Some(current),
                    "case {case}: old {old_offset}"
                );
                assert_eq!(
                    map.to_old(current),
                    Some(old_offset),
                    "case {case}: current {current}"
                );
                assert_eq!(
                    map.span_to_current(old_offset, old_offset + 1),
                    Some((current, current + 1)),
                    "case {case}"
                );
            }
            // Every inserted byte is in a region, and nothing there is
            // carried back.
            for (current, from) in origin.iter().enumerate() {
                if from.is_none() {
                    assert!(
                        map.changed().any(|(a, b)| a <= current && current < b),
                        "case {case}: inserted byte {current} outside every region"
                    );
                }
            }
            // Regions are sorted, disjoint and inside both texts.
            for pair in map.regions.windows(2) {
                assert!(
                    pair[0].new_end < pair[1].new_start && pair[0].old_end <= pair[1].old_start
                );
            }
            for r in &map.regions {
                assert!(
                    r.old_end <= old.len() && r.new_end <= text.len(),
                    "case {case}: {r:?}"
                );
            }
            // The text between the regions is the old text's.
            for (current, from) in origin.iter().enumerate() {
                if map.changed().all(|(a, b)| current < a || b <= current) {
                    assert!(from.is_some(), "case {case}: byte {current}");
                }
            }
        }
    }

    #[test]
    fn typing_a_line_is_one_region() {
        let mut map = EditMap::default();
        // "a: 1\nb: 2\n": type "\n  sever" at the end of line 0, a byte
        // at a time.
        for at in 4..12 {
            map.record(at, at, 1);
        }
        assert_eq!(map.regions.len(), 1);
        assert_eq!(map.changed().collect::<Vec<_>>(), [(4, 12)]);
        // `b` (old 5) is now 8 bytes later; the end of `a: 1` stays.
        assert_eq!(map.to_current(5, Side::Start), Some(13));
        assert_eq!(map.to_current(0, Side::Start), Some(0));
        assert_eq!(map.span_to_current(0, 4), Some((0, 4)));
        assert_eq!(map.to_old(13), Some(5));
        assert_eq!(map.to_old(6), None);
        // Deleting it all again: the texts are the same, the region empty.
        map.record(4, 12, 0);
        assert_eq!(map.to_current(5, Side::Start), Some(5));
    }

    #[test]
    fn the_map_gives_up_past_its_bound_and_on_a_replacement() {
        let mut map = EditMap::default();
        for i in 0..=MAX_REGIONS {
            map.record(i * 10, i * 10 + 1, 1);
        }
        assert!(map.is_lost());
        assert_eq!(map.to_current(0, Side::Start), None);
        assert_eq!(map.to_old(0), None);
        let mut map = EditMap::default();
        map.lose();
        assert!(map.is_lost() && map.span_to_current(0, 0).is_none());
    }
}
