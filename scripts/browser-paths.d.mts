export declare const BROWSER_PATHS: {
  readonly chromium: string;
  readonly firefox: string;
  readonly webkitDriver: string;
  readonly miniBrowser: string;
  readonly xvfb: string;
  readonly xauth: string;
};
export declare const CHROMIUM_ARGS: readonly string[];
export declare const LAUNCH_OPTIONS: {
  readonly chromium: { readonly executablePath: string; readonly args: string[] };
  readonly firefox: { readonly channel: string; readonly executablePath: string };
};
