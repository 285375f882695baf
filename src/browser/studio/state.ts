import type { Design } from '../../pdf/design.schema.js';

// The editor's state, without the DOM: the design being edited, the selected element, and undo and
// redo. Every change goes through commit(): one undo step, then the listener redraws.
//
// Typing in a property applies as it goes; the changes of one burst of typing in one input are one
// undo step. typing() names the input while its change is applied; the burst lasts until the input
// loses focus (endBurst) or BURST_IDLE milliseconds pass without a change.

export const BURST_IDLE = 2000;
const MAX_UNDO = 200;

export class StudioState {
  design: Design;
  selected = -1;
  readonly undoStack: string[] = [];
  readonly redoStack: string[] = [];
  private typingKey: string | undefined;
  private burst: { key: string; until: number } | undefined;

  /** `onChange(live)`: the design changed; `live` when typed into a property (left as it is). */
  constructor(
    design: Design,
    private readonly onChange: (live: boolean) => void = () => undefined,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.design = design;
  }

  /** Applies `change` as one undo step (none if the design is the same after it). */
  commit(change: () => void, before = JSON.stringify(this.design)): void {
    change();
    // The same value again (a colour picker's input then change): no step to undo.
    if (JSON.stringify(this.design) === before) return;
    const key = this.typingKey;
    const joins = key !== undefined && this.burst?.key === key && this.now() < this.burst.until;
    if (!joins) {
      this.undoStack.push(before);
      if (this.undoStack.length > MAX_UNDO) this.undoStack.shift();
    }
    this.burst = key === undefined ? undefined : { key, until: this.now() + BURST_IDLE };
    this.redoStack.length = 0;
    this.clampSelection();
    this.onChange(key !== undefined);
  }

  /** Runs `apply` as typed into the input `key` (its commits join that input's burst), or not. */
  typing(key: string | undefined, apply: () => void): void {
    this.typingKey = key;
    try {
      apply();
    } finally {
      this.typingKey = undefined;
    }
  }

  /** The input lost focus or its value was confirmed: the next change is a new undo step. */
  endBurst(): void {
    this.burst = undefined;
  }

  undo(): void {
    this.travel(this.undoStack, this.redoStack);
  }

  redo(): void {
    this.travel(this.redoStack, this.undoStack);
  }

  /** Replaces the whole design (Edit as JSON), as one undo step. */
  replace(design: Design): void {
    this.commit(() => (this.design = design));
  }

  private travel(from: string[], to: string[]): void {
    const state = from.pop();
    if (state === undefined) return;
    this.burst = undefined;
    to.push(JSON.stringify(this.design));
    this.design = JSON.parse(state) as Design;
    this.clampSelection();
    this.onChange(false);
  }

  private clampSelection(): void {
    if (this.selected >= this.design.elements.length) this.selected = this.design.elements.length - 1;
  }
}
