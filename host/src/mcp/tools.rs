//! The tools: each takes its operation's one request as its arguments
//! (the JSON Schema `tools/list` shows is derived from it), has the
//! operations layer resolve it (the minds it reads and writes as values,
//! under [`ops::WritePolicy::AGENT`]) and reaches the engine only through
//! [`MemoryServer::run_op`], where the operations layer judges the
//! caller's grant.

use super::*;

#[tool_router(vis = "pub(super)")]
impl MemoryServer {
    /// Save one memory.
    #[tool(
        description = "Save a memory: chunked, embedded and stored in the personal mind, or in a workspace's mind when `workspace` is given. Deduplicated by content. The text is stored as given and screened by the prompt-injection detector: `injection_scan` in the result is its verdict, and a hostile memory is quarantined (kept for its owner's review, never recalled)."
    )]
    async fn save_memory(
        &self,
        Parameters(request): Parameters<SaveMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation =
            ops::save::SaveOperation::new(request, ops::WritePolicy::AGENT).map_err(op_error)?;
        let content = operation.content().to_string();
        let (saved, scan) = self
            .run_op(operation, move |engine, saved| {
                let scan = engine
                    .scan_for_injection(&content, ScanContext::ToolOutput)
                    .map_err(engine_error)?;
                Ok((saved, scan))
            })
            .await?;
        let mut value = saved_json(&saved);
        if let Some(object) = value.as_object_mut() {
            object.insert("injection_scan".to_string(), scan_json(&scan));
        }
        // The notice is written from the reasons a model may see.
        for_model(&mut value);
        Ok(json_result(crate::memory_cli::with_quarantine_notice(
            value,
        )))
    }

    /// Recall the memories relevant to a query.
    #[tool(
        description = "Recall the memories most relevant to a query: hybrid keyword + semantic search with importance, date-window, profile, fact, event and raw-turn lanes, scored by recency, importance, popularity and knowledge-graph distance. Returns the formatted recall block and the memories with their scores."
    )]
    async fn recall_memory(
        &self,
        Parameters(request): Parameters<RecallMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::recall::RecallOperation::try_from(request).map_err(op_error)?;
        let recall = self.run_op(operation, |_, recall| Ok(recall)).await?;
        let mut value = ops::recall::recall_json(&recall);
        for_model(&mut value);
        if let Some(object) = value.as_object_mut() {
            object.remove("stages");
        }
        let text = if let Some(why) = &recall.withheld {
            format!("Recall withheld: {why}")
        } else if recall.memories.is_empty() {
            "Nothing relevant is remembered.".to_string()
        } else {
            recall.text.clone()
        };
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(value);
        Ok(result)
    }

    /// Learn from an exchange.
    #[tool(
        description = "After a successful turn, learn from the (user, assistant) exchange: preferences, corrections and style go to the personal mind; decisions, findings and work output to the workspace's mind."
    )]
    async fn remember_exchange(
        &self,
        Parameters(request): Parameters<RememberExchangeArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation =
            ops::exchange::Exchange::new(request, ops::WritePolicy::AGENT).map_err(op_error)?;
        let saved = self.run_op(operation, |_, saved| Ok(saved)).await?;
        let frames: Vec<Json> = saved.iter().map(saved_json).collect();
        Ok(json_result(json!({ "saved": frames })))
    }

    /// Browse the knowledge graph.
    #[tool(
        description = "Search the knowledge graph's entities whose name contains a text (case-insensitive), most seen first."
    )]
    async fn search_entities(
        &self,
        Parameters(request): Parameters<SearchEntitiesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::graph::SearchEntities::new(request).map_err(op_error)?;
        let entities = self.run_op(operation, |_, entities| Ok(entities)).await?;
        let entities: Vec<Json> = entities.iter().map(entity_json).collect();
        Ok(json_result(json!({ "entities": entities })))
    }

    /// Add or strengthen an entity.
    #[tool(
        description = "Save an entity (person, organization, project, technology, concept, …) in the knowledge graph; an existing one with the same canonical name and type is strengthened instead. Dates, numbers and generic words are refused."
    )]
    async fn save_entity(
        &self,
        Parameters(request): Parameters<SaveEntityArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation =
            ops::graph::SaveEntity::new(request, ops::WritePolicy::AGENT).map_err(op_error)?;
        let entity = self.run_op(operation, |_, entity| Ok(entity)).await?;
        Ok(json_result(json!({ "entity": entity_json(&entity) })))
    }

    /// Relate two entities.
    #[tool(
        description = "Create (or strengthen) a typed, directed relation between two existing entities named exactly, e.g. subject `ledger` depends_on object `postgresql`. The type is stored as cognify spells it (depends_on → depends-on); strength defaults to 0.8."
    )]
    async fn create_relation(
        &self,
        Parameters(request): Parameters<CreateRelationArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation =
            ops::graph::CreateRelation::new(request, ops::WritePolicy::AGENT).map_err(op_error)?;
        let relation = self.run_op(operation, |_, relation| Ok(relation)).await?;
        Ok(json_result(json!({
            "relation": {
                "id": relation.id,
                "subject": relation.subject,
                "relation": relation.relation,
                "object": relation.object,
                "strength": relation.strength,
                "seen_count": relation.seen_count,
            }
        })))
    }

    /// Who the agent is.
    #[tool(
        description = "The agent's identity (name, role, personality, capabilities, standing instructions): the personal mind's, or a workspace's own when `workspace` is given."
    )]
    async fn get_identity(
        &self,
        Parameters(request): Parameters<WorkspaceArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::identity::GetIdentity::new(&request).map_err(op_error)?;
        let view = self
            .run_op(operation, |engine, identity| {
                identity_view(engine, identity.as_ref())
            })
            .await?;
        Ok(json_result(view))
    }

    /// Set who the agent is.
    #[tool(
        description = "Set the agent's identity (the personal mind's, or a workspace's own when `workspace` is given); fields left out keep their value."
    )]
    async fn set_identity(
        &self,
        Parameters(request): Parameters<SetIdentityArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation =
            ops::identity::SetIdentity::new(request, ops::WritePolicy::AGENT).map_err(op_error)?;
        let view = self
            .run_op(operation, |engine, identity| {
                identity_view(engine, Some(&identity))
            })
            .await?;
        Ok(json_result(view))
    }

    /// What the agent is working on.
    #[tool(
        description = "The live awareness items (at most ten per mind), highest priority first."
    )]
    async fn get_awareness(
        &self,
        Parameters(request): Parameters<WorkspaceArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::awareness::ListAwareness::new(&request).map_err(op_error)?;
        let items = self
            .run_op(operation, |engine, items| awareness_views(engine, &items))
            .await?;
        Ok(json_result(json!({ "items": items })))
    }

    /// Add an awareness item.
    #[tool(
        description = "Add an awareness item (category task, action, pending or flag). At most ten are live: with evict=true the lowest-priority one is removed (and reported), otherwise a full list is an error."
    )]
    async fn set_awareness(
        &self,
        Parameters(request): Parameters<SetAwarenessArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::awareness::AddAwareness::new(request, ops::WritePolicy::AGENT)
            .map_err(op_error)?;
        let shown = self
            .run_op(operation, |engine, added| {
                let evicted = match &added.evicted {
                    Some(item) => Some(awareness_view(engine, item)?),
                    None => None,
                };
                Ok(json!({
                    "added": awareness_view(engine, &added.item)?,
                    "evicted": evicted,
                }))
            })
            .await?;
        Ok(json_result(shown))
    }

    /// Remove awareness items.
    #[tool(description = "Remove one awareness item by id, or all live items with all=true.")]
    async fn clear_awareness(
        &self,
        Parameters(request): Parameters<ClearAwarenessArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::awareness::RemoveAwareness::new(&request, ops::WritePolicy::AGENT)
            .map_err(op_error)?;
        let removed = self.run_op(operation, |_, ids| Ok(ids)).await?;
        Ok(json_result(json!({ "removed": removed })))
    }

    /// The workspaces.
    #[tool(description = "The workspaces that have a mind in the data directory.")]
    async fn list_workspaces(&self) -> Result<CallToolResult, McpError> {
        // Only the workspaces the caller reaches are named.
        let operation = ops::workspaces::ListWorkspaces {
            caller: self.caller()?,
        };
        let workspaces = self.run_op(operation, |_, ids| Ok(ids)).await?;
        Ok(json_result(json!({ "workspaces": workspaces })))
    }

    /// Create a workspace.
    #[tool(
        description = "Create a workspace's mind (1-64 ASCII letters, digits, '-', '_' or '.'). Creating one that exists is fine."
    )]
    async fn create_workspace(
        &self,
        Parameters(request): Parameters<CreateWorkspaceArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::workspaces::CreateWorkspace::new(&request).map_err(op_error)?;
        let workspace = self.run_op(operation, |_, workspace| Ok(workspace)).await?;
        Ok(json_result(
            json!({ "workspace": workspace.id, "created": workspace.created }),
        ))
    }

    /// Import a history or a document.
    #[tool(
        description = "Import a history into memory: a ChatGPT, Claude, Gemini, Perplexity or Claude Code export (JSON, JSONL or the export zip), Markdown, plain text, PDF, a web page, or universal JSON messages. Give exactly one of path (a file or folder under the folders the user allowed: the client's roots or `[mcp] import_roots`), data (the content itself) or url. The format is detected by content (override with source). Every message becomes a raw-turn memory; facts, events and profiles are distilled (by the configured language model, else heuristically); hostile items are dropped; importing the same export again writes nothing. Returns the import's report."
    )]
    async fn harvest_import(
        &self,
        Parameters(request): Parameters<HarvestImportArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        self.import_request(request, context).await
    }

    /// The sources imported before.
    #[tool(
        description = "List the sources imported into the personal mind (or a workspace's): format, name, item count, the set hash that makes a re-import of the same export a no-op, and when each was first and last imported."
    )]
    async fn harvest_sources(
        &self,
        Parameters(request): Parameters<HarvestSourcesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::minds::Sources::new(&request).map_err(op_error)?;
        let name = mind_name(&operation.mind);
        let sources = self.run_op(operation, |_, sources| Ok(sources)).await?;
        let sources: Vec<Json> = sources
            .iter()
            .map(crate::harvest_cli::harvest_source_json)
            .collect();
        Ok(json_result(json!({ "mind": name, "sources": sources })))
    }

    /// Ingest one document by URL or path.
    #[tool(
        description = "Ingest one source into memory: an http(s) URL (fetched by the host: private, loopback and link-local addresses are refused, with a timeout and a size cap) or a path to a file under the folders the user allowed (the client's roots or `[mcp] import_roots`; hidden files and /proc, /sys, /dev, /run are refused). Detected by content, parsed, scanned for prompt injection, distilled and stored like harvest_import."
    )]
    async fn ingest_source(
        &self,
        Parameters(args): Parameters<IngestSourceArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let request = ops::import::ImportRequest::try_from(args).map_err(op_error)?;
        self.import_request(request, context).await
    }

    /// Find (and retire) dead-weight frames.
    #[tool(
        description = "Find frames that are empty, duplicated (same text but for case and spacing) or near-duplicated (trigram similarity >= 0.75), keeping the most important (then oldest) of each group; raw conversation turns, replaced versions (a corrected memory's old text) and archived memories are left alone, so a current memory is never retired in favour of its history. With apply=true they are retired (importance deprecated: kept for history, ranked down, never deleted); by default only reported."
    )]
    async fn cleanup_frames(
        &self,
        Parameters(request): Parameters<CleanupFramesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::cleanup::CleanupFrames::new(&request).map_err(op_error)?;
        let name = mind_name(&operation.mind);
        let (report, candidates) = self
            .run_op(operation, |engine, report| {
                let candidates = report
                    .candidates
                    .iter()
                    .map(|candidate| {
                        let value = json!({
                            "id": candidate.frame.id,
                            "reason": candidate.reason.wit_name(),
                            "kept": candidate.kept.as_ref().map(|kept| kept.id),
                            "similarity": candidate.similarity,
                            "content": candidate.content,
                        });
                        guarded(engine, value, "content", &candidate.content)
                    })
                    .collect::<Result<Vec<Json>, McpError>>()?;
                Ok((report, candidates))
            })
            .await?;
        Ok(json_result(json!({
            "mind": name,
            "scanned": report.scanned,
            "applied": request.apply,
            "retired": report.retired,
            "candidates": candidates,
            "notes": report.notes,
        })))
    }

    /// Forget memories for real.
    #[tool(
        description = "Forget memories for good: each named memory (by reference, e.g. personal:42) or every memory of one mind matching a filter (matching: all these words; since/until: event days YYYY-MM-DD; learned_since/learned_until: the days it was written into the mind; harvest_format; document) is erased with its search entries, vectors, the entities left without evidence and copies of its text, and the freed space is reclaimed. Without confirm=true nothing changes: the answer lists exactly what would be erased. An erasure log keeps references, hashes, times and the reason, never the text."
    )]
    async fn forget_memory(
        &self,
        Parameters(args): Parameters<ForgetMemoryRequest>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::forget::ForgetOperation::new(&args).map_err(op_error)?;
        let value = self
            .run_op(operation, move |engine, report| {
                let mut value = crate::forget_cli::report_json(&report);
                if let Some(memories) = value.get_mut("memories").and_then(Json::as_array_mut) {
                    for (memory, forgotten) in memories.iter_mut().zip(&report.memories) {
                        *memory = guarded(engine, memory.take(), "preview", &forgotten.preview)?;
                    }
                }
                if report.dry_run {
                    let count = report.memories.len();
                    value["confirm"] = json!(format!(
                        "nothing was changed; call forget_memory again with the same arguments and confirm: true to erase these {count} memories"
                    ));
                }
                Ok(value)
            })
            .await?;
        Ok(json_result(value))
    }

    /// Correct a memory.
    #[tool(
        description = "Correct a memory: writes the corrected text as a new version and closes the old one (it stays in the history; recall answers with the new version, and a recall as_of a time before the correction answers with the old). Use it when the user says a remembered fact is wrong or has changed. The memory is named by reference (e.g. personal:42) as recall shows it. A corrected text the injection detector quarantines replaces nothing until its owner releases it; the result's notice says so."
    )]
    async fn update_memory(
        &self,
        Parameters(request): Parameters<UpdateMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::review::Correct::new(request).map_err(op_error)?;
        let content = operation.content().to_string();
        let value = self
            .run_op(operation, move |engine, corrected| {
                let scan = engine
                    .scan_for_injection(&content, ScanContext::ToolOutput)
                    .map_err(engine_error)?;
                let mut value = json!({
                    "memory": frame_json(&corrected.memory),
                    "replaced": frame_view(engine, &corrected.replaced)?,
                    "injection_scan": scan_json(&scan),
                });
                if let Some(notice) = crate::human::correction_notice(&value) {
                    value["notice"] = Json::String(notice);
                }
                Ok(value)
            })
            .await?;
        Ok(json_result(value))
    }

    /// The versions of a memory.
    #[tool(
        description = "The versions of a memory, oldest first: the memories it replaced, itself, and those that replaced it, each with its event time and when it stopped being valid."
    )]
    async fn memory_history(
        &self,
        Parameters(request): Parameters<MemoryHistoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::review::History::new(&request).map_err(op_error)?;
        let value = self
            .run_op(operation, |engine, versions| {
                let versions = versions
                    .iter()
                    .map(|version| frame_view(engine, version))
                    .collect::<Result<Vec<Json>, McpError>>()?;
                Ok(json!({ "versions": versions }))
            })
            .await?;
        Ok(json_result(value))
    }

    /// Merge duplicate entities.
    #[tool(
        description = "Merge active entities with the same canonical name and type (the graph's duplicate cleanup); returns how many were retired."
    )]
    async fn cleanup_entities(
        &self,
        Parameters(request): Parameters<WorkspaceArgs>,
    ) -> Result<CallToolResult, McpError> {
        let mind = request.mind().map_err(op_error)?;
        let retired = self
            .run_op(ops::cleanup::DedupeEntities { mind }, |_, retired| {
                Ok(retired)
            })
            .await?;
        Ok(json_result(json!({ "retired": retired })))
    }

    /// Archive, pin or tag a memory.
    #[tool(
        description = "Review a memory by hand: archived=true archives it (kept, readable and traceable, but out of recall), archived=false brings it back; pinned=true pins it (cleanup never retires it); add_tags / remove_tags change its tags. What is left out stays as it is. Every change is logged."
    )]
    async fn review_memory(
        &self,
        Parameters(request): Parameters<ReviewMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::review::SetMetadata::new(request).map_err(op_error)?;
        let value = self
            .run_op(operation, |engine, changed| {
                let memory = match changed.first() {
                    Some(frame) => frame_view(engine, frame)?,
                    None => Json::Null,
                };
                Ok(json!({ "memory": memory }))
            })
            .await?;
        Ok(json_result(value))
    }

    /// Merge memories into one.
    #[tool(
        description = "Merge memories of one mind that say parts of the same thing into one memory (content: the merged text; default: their texts joined). The originals are archived, never deleted, and point at the merged memory; recall answers a search that finds one of them with the merged memory. A merged text the injection detector finds hostile is refused and nothing changes."
    )]
    async fn merge_memories(
        &self,
        Parameters(request): Parameters<MergeMemoriesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::review::Merge::new(request).map_err(op_error)?;
        let value = self
            .run_op(operation, |engine, merged| {
                let originals = merged
                    .originals
                    .iter()
                    .map(|frame| frame_view(engine, frame))
                    .collect::<Result<Vec<Json>, McpError>>()?;
                Ok(json!({
                    "memory": frame_view(engine, &merged.memory)?,
                    "originals": originals,
                }))
            })
            .await?;
        Ok(json_result(value))
    }

    /// Where a memory came from.
    #[tool(
        description = "The trace of a memory: how it was written (its metadata: conversation turn, import, kind), its session, the memory it branches off, the memories it replaced and that were merged into it, its branches, its entities, related memories, and its review history."
    )]
    async fn trace_memory(
        &self,
        Parameters(request): Parameters<MemoryHistoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::review::Trace::new(&request).map_err(op_error)?;
        let value = self
            .run_op(operation, |engine, trace| {
                let mut value = crate::review_cli::trace_json(&trace);
                value["memory"] = frame_view(engine, &trace.memory)?;
                Ok(value)
            })
            .await?;
        Ok(json_result(value))
    }

    /// Read the knowledge graph.
    #[tool(
        description = "Read the knowledge graph: with entity (an id), that entity with its properties, its relations out and in, the entities at their other end and the memories that mention it, plus, with depth (1-4), every entity within that many hops; without entity, the entities whose name contains text, most seen first. entity_type keeps one type."
    )]
    async fn explore_graph(
        &self,
        Parameters(request): Parameters<ExploreGraphArgs>,
    ) -> Result<CallToolResult, McpError> {
        let value = match request.read().map_err(op_error)? {
            ops::graph::GraphRead::Listing(operation) => {
                self.run_op(operation, |_, found| {
                    Ok(json!({
                        "entities": found.iter().map(crate::review_cli::entity_json).collect::<Vec<_>>(),
                    }))
                })
                .await?
            }
            ops::graph::GraphRead::One(operation) => {
                self.run_op(operation, |_, (view, hops)| {
                    let mut value = crate::review_cli::entity_view_json(&view);
                    if let Some(hops) = hops {
                        value["neighbours"] = crate::review_cli::hops_json(&hops);
                    }
                    Ok(value)
                })
                .await?
            }
        };
        Ok(json_result(value))
    }

    /// The wiki: its pages and health.
    #[tool(
        description = "Compile the wiki of the personal mind (or a workspace's): the pages (`you`, then one per person, place, project or organisation the memories name, the most stated first) with their counts of current statements and possible conflicts, and the health report's counts. Pages are compiled from the memories when read, so they are always current. Read a page with get_page."
    )]
    async fn compile_wiki(
        &self,
        Parameters(request): Parameters<CompileWikiArgs>,
    ) -> Result<CallToolResult, McpError> {
        let workspace = request.workspace.clone();
        let ops::wiki::WikiRead::List(list) = ops::wiki::WikiRequest::from(request)
            .read()
            .map_err(op_error)?
        else {
            return Err(op_error(ops::OpError::Invalid(
                "compile_wiki lists the pages: read one with get_page".to_string(),
            )));
        };
        let pages = self.run_op(list, |_, pages| Ok(pages)).await?;
        let health = ops::wiki::WikiHealth::new(ops::wiki::WikiHealthRequest {
            workspace,
            limit: Some(1),
        })
        .map_err(op_error)?;
        let report = self.run_op(health, |_, report| Ok(report)).await?;
        Ok(json_result(json!({
            "pages": pages.iter().map(ops::wiki::summary_json).collect::<Vec<_>>(),
            "health": ops::wiki::health_json(&report)["counts"],
        })))
    }

    /// One wiki page.
    #[tool(
        description = "Read one wiki page by its address (`you`, `entity-<id>` or `topic-<word>` as compile_wiki lists them): what is known now, newest first, each statement a memory with its reference (correct or forget it by that reference); earlier versions under history; possible conflicts; related pages; and the page as Markdown."
    )]
    async fn get_page(
        &self,
        Parameters(request): Parameters<GetPageArgs>,
    ) -> Result<CallToolResult, McpError> {
        let page = request.operation().map_err(op_error)?;
        let page = self.run_op(page, |_, page| Ok(page)).await?;
        Ok(json_result(ops::wiki::page_json(&page)))
    }

    /// Search the wiki.
    #[tool(
        description = "Search the wiki: the pages whose title or current statements contain a text (case-insensitive), titles first."
    )]
    async fn search_wiki(
        &self,
        Parameters(request): Parameters<SearchWikiArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::wiki::SearchWiki::new(request).map_err(op_error)?;
        let pages = self.run_op(operation, |_, pages| Ok(pages)).await?;
        Ok(json_result(json!({
            "pages": pages.iter().map(ops::wiki::summary_json).collect::<Vec<_>>(),
        })))
    }

    /// The health report.
    #[tool(
        description = "The health report of the personal mind (or a workspace's): current statements that may conflict, stale ones (over a year old, never recalled), memories no page cites, and quarantined ones waiting for review; counts of each and the findings, each naming its memories."
    )]
    async fn compile_health(
        &self,
        Parameters(request): Parameters<CompileHealthArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::wiki::WikiHealth::new(request).map_err(op_error)?;
        let report = self.run_op(operation, |_, report| Ok(report)).await?;
        Ok(json_result(ops::wiki::health_json(&report)))
    }

    /// The sessions of a mind.
    #[tool(
        description = "The sessions of the personal mind (or a workspace's), newest first: id, project, whether closed, start and end, summary, how many memories."
    )]
    async fn list_sessions(
        &self,
        Parameters(request): Parameters<ListSessionsArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::review::Sessions::new(&request).map_err(op_error)?;
        let sessions = self.run_op(operation, |_, sessions| Ok(sessions)).await?;
        Ok(json_result(json!({
            "sessions": sessions.iter().map(crate::review_cli::session_json).collect::<Vec<_>>(),
        })))
    }

    /// One session with its memories.
    #[tool(
        description = "One session of the personal mind (or a workspace's) with its memories in the order they were written: a whole imported conversation, turn by turn (title, dates, and each turn's speaker in its metadata). session: the id list_sessions shows."
    )]
    async fn get_session(
        &self,
        Parameters(request): Parameters<GetSessionArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::review::SessionMemories::new(&request).map_err(op_error)?;
        let view = self.run_op(operation, |_, view| Ok(view)).await?;
        Ok(json_result(crate::review_cli::session_view_json(&view)))
    }

    /// Close a session.
    #[tool(
        description = "Close a session (with an optional summary); the next memory saved starts a new one. Closing a closed session is an error."
    )]
    async fn close_session(
        &self,
        Parameters(request): Parameters<CloseSessionArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::review::CloseSession::new(request).map_err(op_error)?;
        let session = self.run_op(operation, |_, session| Ok(session)).await?;
        Ok(json_result(crate::review_cli::session_json(&session)))
    }

    /// Cleanup modes.
    #[tool(
        description = "Keep a mind tidy. mode: compact (empty and duplicated memories), retire-orphans (entities no memory mentions and no relation touches), remove-noise (entities named by noise words, with no relation), or audit (all of them, and how many memories are held back as likely injections: quarantined, or unscreened ones the recall scan flags; never changes anything). With apply=true the mode retires what it finds (kept for history, ranked down or out of the graph, never deleted); by default it only reports."
    )]
    async fn cleanup_memory(
        &self,
        Parameters(request): Parameters<CleanupMemoryArgs>,
    ) -> Result<CallToolResult, McpError> {
        let operation = ops::cleanup::CleanupMemory::new(&request).map_err(op_error)?;
        let apply = operation.applies();
        let mode = operation.mode;
        let name = mind_name(&operation.mind);
        let cleaned = self.run_op(operation, |_, cleaned| Ok(cleaned)).await?;
        let mut report = json!({ "mind": name, "mode": mode.name(), "applied": apply });
        if let Some(frames) = &cleaned.memories {
            report["memories"] = json!({
                "scanned": frames.scanned,
                "found": frames.candidates.iter().map(|candidate| json!({
                    "memory": convert::ref_name(&candidate.frame),
                    "reason": candidate.reason.wit_name(),
                    "kept": candidate.kept.as_ref().map(convert::ref_name),
                })).collect::<Vec<_>>(),
                "retired": frames.retired,
            });
        }
        for (key, found) in [
            ("orphan_entities", &cleaned.orphan_entities),
            ("noise_entities", &cleaned.noise_entities),
        ] {
            if let Some(found) = found {
                report[key] =
                    Json::Array(found.iter().map(crate::review_cli::entity_json).collect());
            }
        }
        // Counted, never shown: their text is what the scan flags. The
        // owner reviews them with `hive-mind review flagged`.
        if let Some(flagged) = cleaned.flagged_memories {
            report["flagged_memories"] = json!(flagged);
        }
        Ok(json_result(report))
    }
}
