import { Piscina, type TaskQueue } from 'piscina';

type Task = Parameters<TaskQueue['push']>[0];

// The PDF threads' queue, fair between render calls: each call's tasks (its lane) wait in order,
// and the lanes take turns, one task each. A single issue that arrives behind a batch of 500 (or an
// import's chunk) waits for at most one of the batch's tasks, not all of them; the batch is slowed
// by the single's one task.

/** Marks a task with its lane: the tasks of one render call share one. */
export const laneOption = (lane: object) => ({ [Piscina.queueOptionsSymbol]: { lane } });

function laneOf(task: Task): unknown {
  const options = task[Piscina.queueOptionsSymbol as keyof Task] as { lane?: unknown } | null;
  return options?.lane ?? task;
}

export class FairTaskQueue implements TaskQueue {
  // Lanes in turn order: a lane served goes to the back (a Map keeps insertion order).
  private readonly lanes = new Map<unknown, Task[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(task: Task): void {
    const lane = laneOf(task);
    const tasks = this.lanes.get(lane);
    if (tasks) tasks.push(task);
    else this.lanes.set(lane, [task]);
    this.count++;
  }

  // A task taken but not handed to a thread (none was free) comes back first, its lane's turn kept:
  // piscina does this with `stricterFIFO: true` (without it, the task would go to the back).
  unshift(task: Task): void {
    const lane = laneOf(task);
    const tasks = this.lanes.get(lane) ?? [];
    tasks.unshift(task);
    const rest = [...this.lanes].filter(([l]) => l !== lane);
    this.lanes.clear();
    this.lanes.set(lane, tasks);
    for (const [l, t] of rest) this.lanes.set(l, t);
    this.count++;
  }

  shift(): Task | null {
    const next = this.lanes.entries().next();
    if (next.done) return null;
    const [lane, tasks] = next.value;
    const task = tasks.shift()!;
    this.lanes.delete(lane);
    if (tasks.length > 0) this.lanes.set(lane, tasks);
    this.count--;
    return task;
  }

  remove(task: Task): void {
    const lane = laneOf(task);
    const tasks = this.lanes.get(lane);
    const index = tasks?.indexOf(task) ?? -1;
    if (index === -1) return;
    tasks!.splice(index, 1);
    if (tasks!.length === 0) this.lanes.delete(lane);
    this.count--;
  }
}
