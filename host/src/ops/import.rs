//! Imports: a history, a document or a page harvested into one mind. One
//! request for every surface that imports: `hive-mind import`, MCP
//! `harvest_import` and `ingest_source`, `POST /api/imports`, and the hook
//! that imports a session at its end when it works alone.
//!
//! An import is long: the engine's harvest job is stepped to its end by
//! the runtime's loop ([`hive_mind_runtime::engine::import`]), which a
//! surface drives its own way (the CLI with a progress bar, MCP with the
//! engine locked one step at a time, the server as a job on its pool). So
//! the request is judged first, and what running it answers is the
//! [`Admitted`] import: the options the loop runs with, which only this
//! module makes, from a request the caller's grant allowed.
//!
//! Whether an import may make its mind is part of the request: an import
//! at the command line, through the server or from a hook makes a
//! workspace's mind by its first write, as every write there does; MCP
//! imports only into a mind that is there (a workspace is made with
//! `create_workspace`), so a mistyped id is an error, not a new mind.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_harvest::{Distillation, ImportOptions, SourceFormat};
use hive_mind_runtime::engine::wit_names::{WitEnum, one_of};
use hive_mind_runtime::engine::wit_types::Mind;
use serde::{Deserialize, Serialize};

use super::{Access, Caller, OpError, Operation};

/// An import, as every surface asks for it: the arguments of MCP
/// `harvest_import`, the query of `POST /api/imports` (whose body is the
/// file, unless `url` is given) and the flags of `hive-mind import` (whose
/// positional inputs are the paths and URLs). What to import is exactly
/// one of `path`, `data` and `url`, each where its surface reads it.
#[derive(
    Debug,
    Clone,
    Default,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    utoipa::IntoParams,
    clap::Args,
)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ImportRequest {
    /// The format, overriding detection by content: chatgpt, claude, gemini,
    /// perplexity, claude-code, markdown, plain-text, pdf, html, universal
    /// (or "auto", the default).
    #[arg(long)]
    #[serde(alias = "format")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Import into this workspace's mind instead of the personal mind.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// "personal" or "workspace", to say explicitly which mind is meant.
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mind: Option<String>,
    /// Parse, scan and distill, but write nothing.
    #[arg(long)]
    #[serde(default)]
    pub dry_run: bool,
    /// Distill heuristically even if a language model is configured.
    #[arg(long)]
    #[serde(default)]
    pub no_llm: bool,
    /// A file or folder on this machine (an export's conversations.json,
    /// its zip, a folder of Markdown notes, a PDF, …), under the folders
    /// the user allowed (MCP only).
    #[arg(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The content itself (a pasted export, a Markdown note; MCP only).
    #[arg(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// An http(s) URL (private and loopback addresses are refused).
    #[arg(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The upload's file name, which helps detection (default `upload`).
    #[arg(skip)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ImportRequest {
    /// The import of this request, its mind resolved under the surface's
    /// `policy` (which also says whether it may make the mind).
    pub fn import(&self, policy: super::WritePolicy) -> Result<Import, OpError> {
        super::capped(&[
            ("source", self.source.as_ref()),
            ("workspace", self.workspace.as_ref()),
            ("mind", self.mind.as_ref()),
            ("url", self.url.as_ref()),
            ("name", self.name.as_ref()),
            ("path", self.path.as_ref()),
        ])?;
        let source = match self.source.as_deref().map(str::trim) {
            None | Some("") | Some("auto") => None,
            Some(name) => Some(parse_format(name).ok_or_else(|| OpError::Argument {
                name: "source",
                why: format!(
                    "unknown format {name:?}: use auto, {}",
                    one_of::<SourceFormat>()
                ),
            })?),
        };
        let options = ImportOptions {
            source,
            mind: policy.mind(self.mind.as_deref(), self.workspace.as_deref())?,
            distillation: if self.no_llm {
                Distillation::Heuristic
            } else {
                Distillation::Auto
            },
            dry_run: self.dry_run,
        };
        Ok(if policy.makes_mind {
            Import::creating(options)
        } else {
            Import::into_existing(options)
        })
    }

    /// What to import: exactly one of `path`, `data` and `url` (none of
    /// them: the surface's own input, a body or positional paths).
    pub fn input(&self) -> Result<Option<ImportInput>, OpError> {
        let given = [&self.path, &self.data, &self.url];
        match given.iter().filter(|input| input.is_some()).count() {
            0 => Ok(None),
            1 => Ok(Some(if let Some(url) = &self.url {
                if !is_url(url) {
                    return Err(OpError::Argument {
                        name: "url",
                        why: format!("{url:?} is not an http(s) URL"),
                    });
                }
                ImportInput::Url(url.clone())
            } else if let Some(data) = &self.data {
                ImportInput::Data(data.clone())
            } else {
                ImportInput::Path(self.path.clone().unwrap_or_default())
            })),
            _ => Err(OpError::Invalid(
                "give exactly one of path, data or url (the thing to import)".to_string(),
            )),
        }
    }
}

/// A format by its CLI/WIT name: the WIT's case names (`claude-code`,
/// `plain-text`, …) or one of a few everyday aliases (`openai`, `md`, `txt`,
/// `json`, …); any case, surrounding spaces ignored.
pub fn parse_format(name: &str) -> Option<SourceFormat> {
    let name = name.trim().to_ascii_lowercase();
    let alias = match name.as_str() {
        "openai" => SourceFormat::Chatgpt,
        "bard" => SourceFormat::Gemini,
        "claude_code" => SourceFormat::ClaudeCode,
        "md" => SourceFormat::Markdown,
        "text" | "txt" => SourceFormat::PlainText,
        "url" | "web" => SourceFormat::Html,
        "json" | "jsonl" => SourceFormat::Universal,
        _ => return SourceFormat::from_wit_name(&name),
    };
    Some(alias)
}

/// Whether `text` names a URL (the engine fetches it).
pub fn is_url(text: &str) -> bool {
    let lower = text.trim_start().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// MCP `ingest_source`'s request (upstream's name and shape): one URL or
/// path, read as the import request with that input.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IngestSourceRequest {
    /// An http(s) URL or a path to a file on this machine.
    pub source: String,
    /// Import into this workspace's mind (it must exist) instead of the
    /// personal mind.
    pub workspace: Option<String>,
}

impl TryFrom<IngestSourceRequest> for ImportRequest {
    type Error = OpError;

    fn try_from(request: IngestSourceRequest) -> Result<ImportRequest, OpError> {
        let source = request.source.trim();
        if source.is_empty() {
            return Err(OpError::Argument {
                name: "source",
                why: "it is empty: give a URL or a path".to_string(),
            });
        }
        let (url, path) = if is_url(source) {
            (Some(source.to_string()), None)
        } else {
            (None, Some(source.to_string()))
        };
        Ok(ImportRequest {
            workspace: request.workspace,
            url,
            path,
            ..ImportRequest::default()
        })
    }
}

/// What an import reads.
#[derive(Debug, Clone)]
pub enum ImportInput {
    /// A file or folder on this machine.
    Path(String),
    /// The content itself.
    Data(String),
    /// An http(s) URL, fetched by the engine.
    Url(String),
}

/// An import into one mind, not yet judged.
pub struct Import {
    /// What the engine's harvest runs with (the mind among them).
    options: ImportOptions,
    /// Whether it may make a workspace's mind that is not there yet.
    creates: bool,
}

/// An import the caller's grant allowed: the options the runtime's loop
/// runs it with.
#[derive(Debug, Clone)]
pub struct Admitted {
    options: ImportOptions,
}

impl Admitted {
    /// The options to run the import with.
    pub fn options(&self) -> &ImportOptions {
        &self.options
    }

    /// The mind it writes.
    pub fn mind(&self) -> &Mind {
        &self.options.mind
    }
}

impl Import {
    /// An import into a mind that must be there.
    pub fn into_existing(options: ImportOptions) -> Import {
        Import {
            options,
            creates: false,
        }
    }

    /// An import that makes a workspace's mind by its first write.
    pub fn creating(options: ImportOptions) -> Import {
        Import {
            options,
            creates: true,
        }
    }

    /// What it writes: its mind (which, for a [`Import::creating`], need
    /// not be there).
    pub fn access(&self) -> Access {
        let access = Access::write(self.options.mind.clone());
        if self.creates {
            access.creating()
        } else {
            access
        }
    }

    /// Admit an import that may make its mind on the caller's grant alone,
    /// before an engine is taken or an upload read (there is no mind to
    /// find). An import into an existing mind needs the engine to look:
    /// it is refused here and goes through [`super::execute`].
    pub fn admit(self, caller: &Caller) -> Result<Admitted, OpError> {
        let access = self.access();
        if access.existing {
            return Err(OpError::Invalid(
                "an import into an existing mind is admitted with the engine".to_string(),
            ));
        }
        caller.authorize(&access)?;
        Ok(Admitted {
            options: self.options,
        })
    }
}

impl Operation for Import {
    type Output = Admitted;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Import::access(self))
    }

    /// Nothing is written yet: the admitted import is run by the runtime's
    /// loop, the surface's way.
    fn run(self, _engine: &mut EngineRuntime) -> Result<Admitted, OpError> {
        Ok(Admitted {
            options: self.options,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::{Grant, Scope};
    use hive_mind_runtime::engine::convert;
    use hive_mind_runtime::engine::wit_harvest::Distillation;

    fn options(mind: Mind) -> ImportOptions {
        ImportOptions {
            source: None,
            mind,
            distillation: Distillation::Auto,
            dry_run: false,
        }
    }

    #[test]
    fn an_import_is_a_write_of_its_mind_and_only_a_creating_one_is_admitted_without_the_engine() {
        let acme = Mind::Workspace("acme".to_string());
        let token = |scope| {
            Caller::Token(Grant {
                name: "t".to_string(),
                scope,
                minds: vec!["workspace:acme".to_string()],
            })
        };
        let admitted = Import::creating(options(acme.clone())).admit(&token(Scope::Write));
        assert_eq!(
            admitted
                .ok()
                .map(|admitted| convert::mind_name(admitted.mind())),
            Some("workspace:acme".to_string())
        );
        assert!(matches!(
            Import::creating(options(acme.clone())).admit(&token(Scope::Read)),
            Err(OpError::Forbidden(_))
        ));
        assert!(matches!(
            Import::creating(options(Mind::Personal)).admit(&token(Scope::Admin)),
            Err(OpError::Forbidden(_))
        ));
        assert!(matches!(
            Import::into_existing(options(acme.clone())).admit(&Caller::Owner),
            Err(OpError::Invalid(_))
        ));
        assert!(Import::into_existing(options(acme)).access().existing);
    }
}
