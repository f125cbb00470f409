//! placeholder
pub struct Advice;
pub struct AdviceOption;
pub struct Position;
pub fn advise() {}
