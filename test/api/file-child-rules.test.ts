import { describeSharedResourceRules, RESOURCES } from '../support/shared-resource-rules';

/** The rules every resource declared on the shared machinery has (resources.md §1), over a file's children. */
describeSharedResourceRules(RESOURCES.filter((resource) => resource.child));
