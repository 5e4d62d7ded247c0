//! The command-line parser of the fixture crate.

use std::collections::HashMap;

/// The most arguments a parser takes.
pub const MAX_ARGS: usize = 64;

/// The arguments, as parsed.
pub type Args = HashMap<String, String>;

/// A parser of command lines.
#[derive(Debug, Default)]
pub struct Parser {
    args: Vec<String>,
}

/// How the parser treats what it does not know.
pub enum Mode {
    Strict,
    Lenient,
}

/// Something that parses.
pub trait Parse {
    fn parse(&mut self, line: &str) -> bool;
}

impl Parser {
    /// Makes an empty parser.
    pub fn new() -> Self {
        Parser { args: Vec::new() }
    }
}

impl Parse for Parser {
    fn parse(&mut self, line: &str) -> bool {
        let words = split(line);
        self.args.extend(words);
        self.check()
    }
}

impl<'a> Parser {
    fn check(&self) -> bool {
        self.args.iter().all(|a| is_number(a))
    }
}

/// Whether s reads as a number, like `-1e10`.
pub fn is_number(s: &str) -> bool {
    s.parse::<f64>().is_ok()
}

fn split(line: &str) -> Vec<String> {
    line.split(' ').map(String::from).collect()
}

macro_rules! arg {
    ($name:expr) => {
        $name
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_numbers() {
        assert!(is_number("-1e10"));
    }
}
