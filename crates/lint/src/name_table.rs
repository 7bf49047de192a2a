//! Ids by name, for names the caller already holds (a contract's phases,
//! an index's facts): an open-addressing table of 4-byte ids whose keys
//! are looked up through the caller, where a map of names to ids would
//! copy or borrow every name and cost about 30 bytes an entry.

/// `EMPTY`, or an id; linear probing from the name's hash. The hasher's
/// seed is random per process, so crafted names cannot all collide.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameTable {
    slots: Vec<u32>,
    hasher: foldhash::fast::RandomState,
}

const EMPTY: u32 = u32::MAX;

impl NameTable {
    /// A table of `names`, each name's id its position. Of equal names,
    /// a lookup finds the first.
    pub(crate) fn new<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> Self {
        let wanted = (names.len() + names.len() / 4 + 1).next_power_of_two();
        let mut table = NameTable {
            slots: vec![EMPTY; wanted],
            hasher: foldhash::fast::RandomState::default(),
        };
        for (id, name) in names.enumerate() {
            let mut at = table.home(name);
            while table.slots[at] != EMPTY {
                at = (at + 1) & (table.slots.len() - 1);
            }
            table.slots[at] = id as u32;
        }
        table
    }

    fn home(&self, name: &str) -> usize {
        use std::hash::BuildHasher;
        (self.hasher.hash_one(name) as usize) & (self.slots.len() - 1)
    }

    /// The id of `name`; `name_of` gives the name of an id.
    pub(crate) fn get<'a>(&self, name: &str, name_of: impl Fn(u32) -> &'a str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mut at = self.home(name);
        loop {
            let id = self.slots[at];
            if id == EMPTY {
                return None;
            }
            if name_of(id) == name {
                return Some(id);
            }
            at = (at + 1) & (self.slots.len() - 1);
        }
    }
}

/// The table is derived from the names it indexes: two tables of the same
/// names are the same table, whatever their seeds put where.
impl PartialEq for NameTable {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::NameTable;

    #[test]
    fn finds_each_name_and_nothing_else() {
        let names: Vec<String> = (0..1000).map(|i| format!("phase_{i}")).collect();
        let table = NameTable::new(names.iter().map(String::as_str));
        for (i, name) in names.iter().enumerate() {
            assert_eq!(table.get(name, |id| &names[id as usize]), Some(i as u32));
        }
        assert_eq!(table.get("phase_1000", |id| &names[id as usize]), None);
        let empty = NameTable::default();
        assert_eq!(empty.get("x", |_| unreachable!()), None);
    }

    #[test]
    fn of_equal_names_the_first_is_found() {
        let names = ["a", "b", "a"];
        let table = NameTable::new(names.iter().copied());
        assert_eq!(table.get("a", |id| names[id as usize]), Some(0));
    }
}
