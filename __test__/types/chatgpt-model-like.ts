// What cli-jaw keeps in its own chatgpt-model.ts and copy-markdown.ts.
export const CHATGPT_MODEL_SELECTOR_BUTTONS = ['button[data-testid="model-switcher-dropdown-button"]'] as const;
export const CHATGPT_COPY_SELECTORS = { turnSelectors: [], copyButtonSelectors: [] } as const;
