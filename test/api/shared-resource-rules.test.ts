import { describeSharedResourceRules, RESOURCES } from '../support/shared-resource-rules';

/**
 * The rules every resource declared on the shared machinery has (resources.md §1), over the
 * top-level resources and the parts of a file (`file-child-rules.test.ts` runs the file's children).
 */
describeSharedResourceRules(RESOURCES.filter((resource) => !resource.child));
