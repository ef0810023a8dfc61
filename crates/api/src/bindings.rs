//! TypeScript declarations of every type that crosses the IPC boundary, generated from the Rust
//! types (ts-rs) so that the UI never mirrors them by hand. `ui/src/types.ts` is this text; a test
//! fails when it is stale, and `UPDATE_BINDINGS=1 cargo test -p research-api bindings` rewrites it.

use ts_rs::{Config, TS};

/// The contents of `ui/src/types.ts`.
pub fn typescript() -> String {
    // 64-bit integers stay below 2^53 here (steps, milliseconds, sizes), so plain numbers.
    let cfg = Config::new().with_large_int("number");
    let decls = [
        serde_json::Value::decl(&cfg),
        research_graph::ThreadId::decl(&cfg),
        research_graph::InterruptKind::decl(&cfg),
        research_graph::Interrupt::decl(&cfg),
        research_graph::Event::decl(&cfg),
        research_graph::CheckpointInfo::decl(&cfg),
        crate::ErrorCode::decl(&cfg),
        crate::ApiError::decl(&cfg),
        crate::Fix::decl(&cfg),
        crate::RunStatus::decl(&cfg),
        crate::RunReport::decl(&cfg),
        crate::ThreadSummary::decl(&cfg),
        crate::AppInfo::decl(&cfg),
        crate::Preferences::decl(&cfg),
        crate::KeySource::decl(&cfg),
        crate::KeyStatus::decl(&cfg),
        crate::KeychainStatus::decl(&cfg),
        crate::ProviderStatus::decl(&cfg),
        crate::ConnectionTest::decl(&cfg),
        crate::Settings::decl(&cfg),
        crate::StartedRun::decl(&cfg),
        crate::GraphOutline::decl(&cfg),
        crate::DialogAnswer::decl(&cfg),
        crate::TextAnswer::decl(&cfg),
        crate::RunEstimate::decl(&cfg),
        crate::ResearchRequest::decl(&cfg),
        crate::PendingQuestion::decl(&cfg),
        crate::ResearchStatus::decl(&cfg),
        crate::ResearchOutcome::decl(&cfg),
        crate::SessionDetail::decl(&cfg),
        crate::RunCalls::decl(&cfg),
        research_llm::Exchange::decl(&cfg),
        research_llm::ExchangeMessage::decl(&cfg),
        crate::ReviewView::decl(&cfg),
        crate::CriterionWeight::decl(&cfg),
        research_pipeline::steps::audit::DraftFinding::decl(&cfg),
        research_pipeline::steps::audit::DraftProblem::decl(&cfg),
        crate::Turn::decl(&cfg),
        crate::RunOrigin::decl(&cfg),
        crate::ForkRequest::decl(&cfg),
        crate::CompareRequest::decl(&cfg),
        crate::Recheck::decl(&cfg),
        crate::ScheduleView::decl(&cfg),
        crate::ScheduleRun::decl(&cfg),
        crate::CheckSource::decl(&cfg),
        crate::CheckStatus::decl(&cfg),
        crate::CheckMeaning::decl(&cfg),
        crate::CheckedSentence::decl(&cfg),
        crate::DocumentCheck::decl(&cfg),
        crate::CheckRequest::decl(&cfg),
        crate::ChosenDocument::decl(&cfg),
        crate::SourceCheck::decl(&cfg),
        crate::SourceState::decl(&cfg),
        crate::LostSupport::decl(&cfg),
        crate::CompareSide::decl(&cfg),
        crate::CompareColumn::decl(&cfg),
        crate::CompareOutcome::decl(&cfg),
        crate::ForkedRun::decl(&cfg),
        research_pipeline::fork::ForkPoint::decl(&cfg),
        crate::TurnView::decl(&cfg),
        research_pipeline::conversation::TurnKind::decl(&cfg),
        research_pipeline::conversation::Decider::decl(&cfg),
        research_pipeline::conversation::Classification::decl(&cfg),
        research_store::ConversationSummary::decl(&cfg),
        crate::RunMethod::decl(&cfg),
        crate::UnreadPage::decl(&cfg),
        crate::RecommendedModel::decl(&cfg),
        crate::SentenceModelOffer::decl(&cfg),
        crate::DownloadProgress::decl(&cfg),
        crate::DownloadedModel::decl(&cfg),
        research_store::SessionRecord::decl(&cfg),
        research_store::SessionStatus::decl(&cfg),
        crate::FormChoices::decl(&cfg),
        crate::Choice::decl(&cfg),
        crate::ProbeModel::decl(&cfg),
        crate::SettingKey::decl(&cfg),
        crate::backups::Rotation::decl(&cfg),
        crate::backups::BackupStatus::decl(&cfg),
        crate::backups::BackupFile::decl(&cfg),
        crate::backups::PendingRestore::decl(&cfg),
        crate::backups::Restored::decl(&cfg),
        crate::archive::Imported::decl(&cfg),
        crate::ModelMeasurement::decl(&cfg),
        research_pipeline::measured::Measured::decl(&cfg),
        research_pipeline::ModelWork::decl(&cfg),
        crate::ExportFormat::decl(&cfg),
        research_store::SourceRow::decl(&cfg),
        research_store::EvidenceRow::decl(&cfg),
        research_store::ClaimRow::decl(&cfg),
        research_store::ReportRow::decl(&cfg),
        research_library::LibraryFolder::decl(&cfg),
        crate::LibraryMeaning::decl(&cfg),
        crate::EmbedProgress::decl(&cfg),
        research_library::IndexReport::decl(&cfg),
        research_pipeline::RunConfig::decl(&cfg),
        research_pipeline::Background::decl(&cfg),
        research_pipeline::Mode::decl(&cfg),
        research_pipeline::Depth::decl(&cfg),
        research_pipeline::Structure::decl(&cfg),
        research_pipeline::Style::decl(&cfg),
        research_pipeline::ReviewPoints::decl(&cfg),
        research_pipeline::ReviewTimeout::decl(&cfg),
        research_pipeline::TimeoutAction::decl(&cfg),
        research_pipeline::Question::decl(&cfg),
        research_pipeline::EscalatedBy::decl(&cfg),
        research_pipeline::Answer::decl(&cfg),
        research_pipeline::Plan::decl(&cfg),
        research_pipeline::Outcome::decl(&cfg),
        research_pipeline::Progress::decl(&cfg),
        research_pipeline::Source::decl(&cfg),
        research_pipeline::Evidence::decl(&cfg),
        research_pipeline::Claim::decl(&cfg),
        research_pipeline::RankedHit::decl(&cfg),
        research_pipeline::eval::Metadata::decl(&cfg),
        research_pipeline::eval::RunResult::decl(&cfg),
        research_pipeline::Coverage::decl(&cfg),
        research_pipeline::steps::audit::AuditEntry::decl(&cfg),
        research_pipeline::steps::audit::AuditStatus::decl(&cfg),
        research_pipeline::steps::analyze::Analysis::decl(&cfg),
        research_pipeline::steps::analyze::Contradiction::decl(&cfg),
        research_pipeline::steps::review::ReviewRecord::decl(&cfg),
        research_pipeline::steps::review::ReviewedDraft::decl(&cfg),
        research_pipeline::steps::review::Critique::decl(&cfg),
        research_pipeline::steps::review::CriterionScore::decl(&cfg),
        research_pipeline::steps::review::Criterion::decl(&cfg),
        research_pipeline::steps::review::Issue::decl(&cfg),
        research_pipeline::steps::review::Severity::decl(&cfg),
        research_pipeline::steps::review::FoundBy::decl(&cfg),
        research_pipeline::steps::review::Verdict::decl(&cfg),
        research_pipeline::steps::review::Escalated::decl(&cfg),
        research_pipeline::steps::review::EscalationChoice::decl(&cfg),
        research_pipeline::TrustVariant::decl(&cfg),
        research_pipeline::steps::profile::Profile::decl(&cfg),
        research_pipeline::steps::tree::ResearchTree::decl(&cfg),
        research_pipeline::steps::tree::TreeQuestion::decl(&cfg),
        research_pipeline::steps::tree::TypedSearch::decl(&cfg),
        research_pipeline::steps::tree::Level::decl(&cfg),
        research_pipeline::steps::tree::SearchKind::decl(&cfg),
        research_pipeline::steps::profile::QueryClass::decl(&cfg),
        research_pipeline::steps::profile::Complexity::decl(&cfg),
        research_pipeline::steps::trust::TrustRecord::decl(&cfg),
        research_pipeline::steps::trust::credibility::Credibility::decl(&cfg),
        research_pipeline::steps::trust::origins::SameOrigin::decl(&cfg),
        research_pipeline::steps::trust::corroborate::ClaimTrust::decl(&cfg),
        research_pipeline::steps::trust::corroborate::Corroboration::decl(&cfg),
        research_pipeline::steps::trust::corroborate::Conflict::decl(&cfg),
        research_pipeline::steps::trust::corroborate::TrustMark::decl(&cfg),
        research_pipeline::steps::trust::corroborate::MarkMeaning::decl(&cfg),
        research_pipeline::Role::decl(&cfg),
        research_pipeline::RoleInfo::decl(&cfg),
        research_pipeline::PipelineInfo::decl(&cfg),
        research_pipeline::OutlineStep::decl(&cfg),
        research_pipeline::WarningKind::decl(&cfg),
        research_llm::CallRecord::decl(&cfg),
        research_llm::ModelRouting::decl(&cfg),
        research_llm::Budget::decl(&cfg),
        research_llm::UsageTotals::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated from the Rust types by research-api's bindings test. Do not edit.\n\n",
    );
    for decl in decls {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn bindings_match_ui_types() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/types.ts");
        let text = super::typescript();
        if std::env::var_os("UPDATE_BINDINGS").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            current == text,
            "ui/src/types.ts is stale: run `UPDATE_BINDINGS=1 cargo test -p research-api bindings`"
        );
    }
}
