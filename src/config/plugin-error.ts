/** Thrown at start-up for an admission plugin's configuration that cannot be used (the message names the field). */
export class PluginConfigurationError extends Error {}
