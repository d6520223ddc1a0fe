//! The protocols of the replay, each with a client half and a server half, and the table of
//! modes: a mode is a protocol's client half, the server half that answers it, and the
//! transport both run on. A new mode is a new module plus one line in [`MODES`]: the line also
//! says which part the mode plays in reports, budgets and options (its [`Role`]s), so no other
//! code names a mode.

pub mod h2;
pub mod half;
pub mod http1;
pub mod mode;

pub use half::{ClientHalf, ServerHalf, Transport};
pub use mode::{Mode, ModeSpec, Question, Role, MODES};
