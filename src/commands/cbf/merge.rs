//! CBF.MERGE destination source [source ...]: the sum of counting filters of one shape, every
//! counter's sum checked first ([`rsbloom_core::counting::merge`]); the shared checks are
//! [`union_into`]'s.

use rsbloom_core::counting::merge::{merge_into, union};
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::Result;

use crate::commands::reply::Reply;
use crate::commands::union_into::union_into;
use crate::commands::Call;

pub fn merge(call: &Call) -> Result<Reply> {
    union_into::<CountingFilter>(call, merge_into, union)
}
