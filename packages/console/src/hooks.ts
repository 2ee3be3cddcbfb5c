// Loading state for a page: one request (or several in one function), its result or its error, a reload,
// and an optional poll that keeps the last good result on screen while the next one loads; the outcome
// line of its writes; a media query's state.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { describeProblem, problemOf, type ApiProblem } from './api.ts';
import type { Message } from './components/ui.tsx';

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[], pollMs?: number): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const run = useCallback(load, deps);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setLoading(true);
    run().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (cause: unknown) => {
        if (mine !== generation.current) return;
        setError(cause instanceof Error ? cause.message : String(cause));
        setLoading(false);
      },
    );
  }, [run]);
  useEffect(() => {
    setData(undefined);
    reload();
    if (!pollMs) return () => void generation.current++;
    const timer = setInterval(reload, pollMs);
    return () => {
      clearInterval(timer);
      generation.current++;
    };
  }, [reload, pollMs]);
  return { data, error, loading, reload };
}

/** What openapi-fetch answers a request with. */
type Answer<T> = { data?: T; error?: unknown; response: Response };

export interface Writes {
  /** The outcome of the latest write, for a MessageLine: what it did, or why the API refused it. */
  message: Message;
  setMessage: (message: Message) => void;
  /**
   * Sends a write and waits for its answer. Accepted (2xx): runs `done` with the answer's data (undefined
   * for a 204) and shows the line it returns, if any. Refused: shows the problem in one line and hands it
   * to `refused` (a form that marks its fields). True when accepted.
   */
  send<T>(request: Promise<Answer<T>>, done: (data: T) => string | void, refused?: (problem: ApiProblem) => void): Promise<boolean>;
}

/**
 * The writes of a page or a form: one outcome line for all of them. `describe` turns a refusal into that
 * line (describeProblems where one form can be refused for several fields at once).
 */
export function useWrite(describe: (problem: ApiProblem) => string = describeProblem): Writes {
  const [message, setMessage] = useState<Message>(null);
  const send = async <T>(request: Promise<Answer<T>>, done: (data: T) => string | void, refused?: (problem: ApiProblem) => void) => {
    setMessage(null);
    const { data, error, response } = await request;
    if (!response.ok) {
      const problem = problemOf(error, response);
      refused?.(problem);
      setMessage({ error: true, text: describe(problem) });
      return false;
    }
    const text = done(data as T);
    if (text !== undefined) setMessage({ error: false, text });
    return true;
  };
  return { message, setMessage, send };
}

/** Whether the CSS media `query` matches now; the component renders again when that changes. */
export function useMedia(query: string): boolean {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const update = () => setMatches(list.matches);
    update();
    list.addEventListener('change', update);
    return () => list.removeEventListener('change', update);
  }, [query]);
  return matches;
}
