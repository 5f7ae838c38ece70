// One helper bash for every policy test that needs bash's own expansion of words (disposed at exit).
import { BashExpander } from '../../../../src/exec/bashExpander';

export const TEST_EXPANDER = new BashExpander();
