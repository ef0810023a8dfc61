// The window's bootstrap: one store, the actions over the api, the views mounted on their roots.
import { listen } from "@tauri-apps/api/event";
import { createActions } from "./actions/index";
import { $, createToaster } from "./dom";
import { Popover } from "./popover";
import { createStore, initialState } from "./store";
import { mountAnswer } from "./views/answer";
import { mountCheck } from "./views/check";
import { mountCompare } from "./views/compare";
import { mountConversation } from "./views/conversation";
import { mountFrame } from "./views/frame";
import { mountLibrary } from "./views/library";
import { mountNewResearch } from "./views/newResearch";
import { mountOnboarding } from "./views/onboarding";
import { mountDamaged } from "./views/damaged";
import { mountReport } from "./views/report";
import { mountReview } from "./views/review";
import { mountSession } from "./views/session";
import { mountSettings } from "./views/settings";
import { mountRecheck } from "./views/recheck";
import { mountSchedule } from "./views/schedule";
import type { ScheduleRun } from "./types";
import { mountTimeline } from "./views/timeline";
import { mountCalls } from "./views/calls";
import { mountTrustBar } from "./views/trust";
import { mountSidebar } from "./views/sidebar";

const store = createStore(initialState());
const toast = createToaster($("toast"));
const actions = createActions(store, toast);
const popover = new Popover({ sourceText: actions.sourceText, openExternal: actions.openExternal });
const ctx = { store, actions, toast, popover };

mountFrame(ctx);
mountSidebar(document.querySelector<HTMLElement>(".sidebar") ?? document.body, ctx);
mountOnboarding($("view-onboarding"), ctx);
mountDamaged($("view-damaged"), ctx);
mountNewResearch($("view-new"), ctx);
mountSession($("view-session"), ctx);
mountAnswer($("answer-panel"), ctx);
mountReport($("view-session"), ctx);
mountTrustBar($("trust-bar"), ctx);
mountReview($("panel-review"), $("tab-review"), ctx);
mountRecheck($("view-session"), ctx);
mountSchedule($("view-session"), ctx);
mountConversation($("conversation"), ctx);
mountTimeline($("timeline"), ctx);
mountCalls($("model-calls"), ctx);
mountCompare($("view-compare"), ctx);
mountLibrary($("view-library"), ctx);
mountCheck($("view-check"), ctx);
mountSettings($("view-settings"), ctx);

listen<string>("menu", (e) => void actions.menu(e.payload)).catch(() => undefined);
// Due schedules ran while the app is open (src-tauri/src/schedules.rs).
listen<ScheduleRun[]>("schedules-ran", (e) => void actions.schedulesRan(e.payload.map((r) => r.session_id))).catch(() => undefined);
void actions.start();
