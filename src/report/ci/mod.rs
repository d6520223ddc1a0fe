//! The formats CI systems read, each a thin renderer of the finished report: JUnit XML for
//! test panels (a suite per page or link, a case per budget), SARIF 2.1.0 for code scanning
//! (the per-file findings), GitLab's Code Quality JSON, and GitHub Actions' workflow commands
//! and job summary. Like the other renderers they read the model and `format.rs` only; which
//! file each goes to, and the rules for writing it, are the command line's (`app.rs`).

pub mod github;
pub mod gitlab;
pub mod junit;
pub mod sarif;
