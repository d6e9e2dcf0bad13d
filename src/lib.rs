//! pbemd (temporary during bring-up)
pub mod clock;
pub mod store;
