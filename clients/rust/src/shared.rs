//! The state every batch of one handle shares (a leaf: `filter` makes it, `ops` reads and
//! replaces it, and neither imports the other for it).

use std::sync::{Arc, Mutex};

use crate::description::{FamilyName, Layout};

/// What every batch of one handle shares: the description it last read. A batch that finds
/// it changed replaces it for the handle's later batches.
#[derive(Debug)]
pub(crate) struct Shared {
    pub family: FamilyName,
    layout: Mutex<Arc<Layout>>,
}

impl Shared {
    pub fn new(family: FamilyName, layout: Layout) -> Shared {
        Shared {
            family,
            layout: Mutex::new(Arc::new(layout)),
        }
    }

    pub fn layout(&self) -> Arc<Layout> {
        self.layout.lock().expect("no panic holds it").clone()
    }

    /// `layout` is the current description from now on.
    pub fn adopt(&self, layout: Layout) -> Arc<Layout> {
        let layout = Arc::new(layout);
        *self.layout.lock().expect("no panic holds it") = layout.clone();
        layout
    }
}
