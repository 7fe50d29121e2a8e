/** What the delivery code says of itself: the logger's calls it makes (a thread forwards them to its process's log). */
export interface WorkerLog {
  error(detail: object, message: string): void;
  warn(detail: object, message: string): void;
  info(detail: object, message: string): void;
}
