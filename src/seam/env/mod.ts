export { isCredentialName, isCredentialValue } from "./credential.ts";
export {
  DSH_ENV_PREFIX,
  ENV_OVERRIDES,
  type EnvDropReason,
  type EnvExplanation,
  type EnvInput,
  type EnvSource,
  explainEnv,
  mergeEnv,
  scrubEnv,
} from "./merge.ts";
