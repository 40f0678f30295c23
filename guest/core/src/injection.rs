//! Prompt-injection scanning.

use serde::{Deserialize, Serialize};

/// Where a scanned text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScanContext {
    /// Typed by the user.
    UserInput,
    /// From a tool, document or recalled memory.
    ToolOutput,
}

/// A family of injection techniques.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InjectionCategory {
    /// Overriding the agent's role or rules.
    RoleOverride,
    /// Extracting the system prompt.
    PromptExtraction,
    /// Smuggled authority markers and commands.
    InstructionInjection,
}

/// What the scanner found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct InjectionReport {
    /// Categories found, each once, in declaration order.
    pub flags: Vec<InjectionCategory>,
    /// Names of the matched patterns.
    pub matched: Vec<String>,
    /// Sum of category weights, capped at 1.0.
    pub score: f64,
    /// `score < 0.3`.
    pub safe: bool,
}

/// Scan a text for prompt injection.
pub fn scan_for_injection(text: &str, context: ScanContext) -> InjectionReport {
    unimplemented!("{text}{context:?}")
}
