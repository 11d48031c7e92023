/**
 * The part of React 18's API the console uses, typed. The project installs react and react-dom
 * (for GraphiQL) but not @types/react or @types/react-dom; with them in devDependencies this
 * file goes. Element attributes are left untyped (IntrinsicElements), the hooks are not.
 */
declare module 'react' {
  export interface ReactElement {
    type: unknown;
    props: unknown;
    key: string | null;
  }
  export type ReactNode = ReactElement | string | number | bigint | boolean | null | undefined | Iterable<ReactNode>;
  export type SetStateAction<S> = S | ((previous: S) => S);
  export type Dispatch<A> = (value: A) => void;
  export type DependencyList = readonly unknown[];
  export interface MutableRefObject<T> {
    current: T;
  }
  export interface RefObject<T> {
    readonly current: T | null;
  }
  export interface Context<T> {
    Provider: (props: { value: T; children?: ReactNode }) => ReactNode;
  }
  export type FC<P = object> = (props: P) => ReactNode;
  export type ComponentType<P = object> = (props: P) => ReactNode;
  export type PropsWithChildren<P = object> = P & { children?: ReactNode };

  export function useState<S>(initial: S | (() => S)): [S, Dispatch<SetStateAction<S>>];
  export function useState<S = undefined>(): [S | undefined, Dispatch<SetStateAction<S | undefined>>];
  export function useReducer<S, A>(reducer: (state: S, action: A) => S, initial: S): [S, Dispatch<A>];
  export function useEffect(effect: () => void | (() => void), deps?: DependencyList): void;
  export function useLayoutEffect(effect: () => void | (() => void), deps?: DependencyList): void;
  export function useMemo<T>(factory: () => T, deps: DependencyList): T;
  export function useCallback<T extends (...args: never[]) => unknown>(callback: T, deps: DependencyList): T;
  export function useRef<T>(initial: T): MutableRefObject<T>;
  export function useRef<T>(initial: T | null): RefObject<T>;
  export function useId(): string;
  export function useContext<T>(context: Context<T>): T;
  export function createContext<T>(initial: T): Context<T>;
  export function useSyncExternalStore<T>(subscribe: (onChange: () => void) => () => void, snapshot: () => T): T;
  export function startTransition(scope: () => void): void;
  export function useDeferredValue<T>(value: T): T;
  export function lazy<P>(load: () => Promise<{ default: ComponentType<P> }>): ComponentType<P>;
  export const Suspense: (props: { fallback?: ReactNode; children?: ReactNode }) => ReactNode;
  export const StrictMode: (props: { children?: ReactNode }) => ReactNode;
  export const Fragment: (props: { children?: ReactNode }) => ReactNode;

  export interface SyntheticEvent<T = Element> {
    currentTarget: T;
    target: EventTarget;
    preventDefault(): void;
    stopPropagation(): void;
  }
  export type FormEvent<T = Element> = SyntheticEvent<T>;
  export interface ChangeEvent<T = Element> extends SyntheticEvent<T> {
    target: EventTarget & T;
  }
  export interface MouseEvent<T = Element> extends SyntheticEvent<T> {
    button: number;
    ctrlKey: boolean;
    metaKey: boolean;
  }
  export type MouseEventHandler<T = Element> = (event: MouseEvent<T>) => void;
  export type CSSProperties = Record<string, string | number | undefined>;
  export interface AnchorHTMLAttributes<T> {
    href?: string;
    className?: string;
    children?: ReactNode;
    onClick?: MouseEventHandler<T>;
    [attribute: string]: unknown;
  }
  export interface RefAttributes<T> {
    ref?: RefObject<T> | ((instance: T | null) => void);
  }
  export type JSXElementConstructor<P> = (props: P) => ReactNode;
  export type FunctionComponent<P = object> = FC<P>;
}

declare module 'react/jsx-runtime' {
  import type { ReactElement, ReactNode } from 'react';
  export namespace JSX {
    type ElementType = string | ((props: any) => ReactNode);
    interface Element extends ReactElement {}
    interface ElementChildrenAttribute {
      children: object;
    }
    interface IntrinsicAttributes {
      key?: string | number | null;
    }
    interface IntrinsicElements {
      [name: string]: any;
    }
  }
  export const jsx: unknown;
  export const jsxs: unknown;
  export const Fragment: unknown;
}

declare module 'react-dom/client' {
  import type { ReactNode } from 'react';
  export function createRoot(container: Element): { render(node: ReactNode): void; unmount(): void };
}
