/**
 * Block Kit types used by the renderers, in one place. They come from `@slack/types`, which Bolt
 * depends on (type-only imports: nothing of it is loaded at run time).
 */
import type { KnownBlock } from "@slack/types";

export type {
  ActionsBlock,
  Button,
  ConfirmationDialog,
  ContextBlock,
  ContextBlockElement,
  HeaderBlock,
  ImageElement,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  SectionBlock,
  TextObject,
} from "@slack/types";

/** What every renderer returns: `text` is the notification / screen-reader fallback. */
export type Message = { text: string; blocks: KnownBlock[] };
