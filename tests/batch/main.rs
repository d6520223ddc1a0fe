//! Many sites at once: `webdiet batch` and `webdiet merge` through the built binary, sharded
//! as a Slurm array on a real one-node cluster and as a Kubernetes Indexed Job's contract.
//!
//! One test binary per subject (as ripgrep keeps one): each integration binary links the
//! whole crate, so many of them cost more to build than their tests take to run.

#[path = "../common/mod.rs"]
mod common;

mod batch;
mod slurm;
