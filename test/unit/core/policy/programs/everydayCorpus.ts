// Everyday read-only command lines as coding agents write them, and the writer/runner forms of the
// same programs. Used by everydayCorpus.test.ts with only the built-in read-only list.

export const EVERYDAY: readonly string[] = [
  // git
  'git status', 'git status --short', 'git status -sb', 'git status --porcelain', 'git status --porcelain=v1',
  'git status -s -uno', 'git status --untracked-files=no', 'git log', 'git log --oneline', 'git log --oneline -20',
  'git log --oneline -n 10', 'git log -5 --stat', 'git log --oneline --graph --all', 'git log --oneline --graph --decorate -30',
  'git log -p -1', 'git log --format="%h %s" -10', "git log --pretty=format:'%h %an %s' -15", 'git log --since="2 weeks ago" --oneline',
  'git log --author=alice --oneline', 'git log --grep=fix --oneline', 'git log --oneline -- src/extension.ts',
  'git log -1 --format=%H', 'git log --name-only -3', 'git log --name-status -5', 'git log main..HEAD --oneline',
  'git log --reverse --oneline | head -5', 'git log -S foo --oneline', 'git log --follow --oneline -- README.md',
  'git diff', 'git diff --stat', 'git diff --cached', 'git diff --staged', 'git diff HEAD~1', 'git diff HEAD~1 --stat',
  'git diff main...HEAD', 'git diff --name-only', 'git diff --name-only HEAD~3', 'git diff -- src/index.ts',
  'git diff --word-diff', 'git diff -U0', 'git diff --color=never', 'git diff --numstat', 'git diff --shortstat HEAD~2',
  'git show', 'git show HEAD', 'git show --stat', 'git show HEAD~1 --stat', 'git show HEAD:package.json',
  'git show --name-only HEAD', 'git show -s --format=%ci HEAD', 'git show abc123 -- src/x.ts', 'git branch', 'git branch -a',
  'git branch -vv', 'git branch --list', 'git branch --show-current', 'git branch -r', 'git branch --list "feature/*"',
  'git branch --merged', 'git branch --contains HEAD', 'git rev-parse HEAD', 'git rev-parse --short HEAD',
  'git rev-parse --abbrev-ref HEAD', 'git rev-parse --show-toplevel', 'git rev-parse --is-inside-work-tree',
  'git rev-parse --git-dir', 'git ls-files', 'git ls-files | wc -l', "git ls-files '*.ts' | head -50", 'git ls-files -m',
  'git ls-files --others --exclude-standard', 'git ls-files src | grep test', 'git blame src/x.ts', 'git blame -L 10,20 src/x.ts',
  'git blame -w src/index.ts | head -40', 'git remote -v', 'git --no-pager log --oneline -10', 'git --no-pager diff',
  'git -C . status', 'git log --oneline | grep -i fix', 'git diff --stat | tail -1', 'git status --short | wc -l',
  // ls, pwd, cat, head, tail
  'ls', 'ls -la', 'ls -l', 'ls -al src', 'ls -lh', 'ls -1', 'ls -R src | head -50', 'ls src/', 'ls -la src/ test/',
  'ls -lt | head', 'ls -d */', 'ls --color=never', 'ls -la | grep ts', 'pwd', 'pwd && ls', 'cat package.json',
  'cat README.md', 'cat -n src/x.ts', 'cat src/x.ts | head -50', 'cat package.json | jq .scripts', 'cat tsconfig.json',
  'cat src/x.ts src/index.ts', 'head src/x.ts', 'head -20 src/x.ts', 'head -n 50 README.md', 'head -c 200 package.json',
  'tail src/x.ts', 'tail -20 src/x.ts', 'tail -n 30 README.md', 'tail -n +10 src/x.ts | head -20', 'tail -5 package.json',
  // wc, grep, rg
  'wc -l src/x.ts', 'wc -l src/*.ts', 'wc -c package.json', 'wc src/x.ts', 'grep foo src/x.ts', 'grep -n foo src/x.ts',
  'grep -rn "foo" src', 'grep -rn "foo" src | head -20', 'grep -r TODO .', 'grep -rl import src', 'grep -ri "export" src/',
  'grep -c function src/x.ts', 'grep -E "foo|bar" src/x.ts', 'grep -v "^#" README.md', 'grep -rn --include="*.ts" foo .',
  'grep -rn --exclude-dir=node_modules foo .', 'grep -A 3 -B 2 foo src/x.ts', 'grep -C5 main src/index.ts',
  'grep -w export src/x.ts', 'grep -o "[a-z]*" src/x.ts | sort | uniq -c', "grep -rnE 'function\\s+\\w+' src",
  'grep -l foo src/*.ts', 'grep -q foo src/x.ts && echo yes', 'grep -e foo -e bar src/x.ts', 'grep -F "a.b" README.md',
  'grep -rn "describe(" test | wc -l', 'egrep "a|b" src/x.ts', 'fgrep foo src/x.ts', 'grep --color=never -n foo src/x.ts',
  'rg foo', 'rg foo src', 'rg -n foo src', 'rg -i "todo" .', 'rg --files', 'rg --files | head -30', 'rg -l import src',
  'rg -t ts foo', 'rg -g "*.ts" foo', 'rg -C 2 foo src/x.ts', 'rg --hidden foo', 'rg -w export src', 'rg -c foo src',
  'rg --json foo src | head', "rg 'fn \\w+' src", 'rg -F "a.b" .', 'rg foo -g "!node_modules"', 'rg -uu foo',
  // find
  'find .', 'find . -name "*.ts"', "find . -name '*.ts' -not -path './node_modules/*' | wc -l", 'find src -type f',
  'find . -type f -name "*.json" | head', 'find . -maxdepth 2 -type d', 'find . -name "*.test.ts" -print',
  'find src -newer package.json', 'find . -type f -size +100k', 'find . -mtime -1 -type f', 'find . -iname readme*',
  'find . -path ./node_modules -prune -o -name "*.ts" -print', 'find . -type f | sort', 'find . -empty',
  'find src -name "*.ts" 2>/dev/null || true', 'find . -type f -printf "%s %p\\n" | sort -n | tail',
  'find . -name "*.ts" -print0 | sort -z | head -c 100', 'find src test -name "*.ts" | wc -l',
  // sort uniq cut tr
  'sort package.json', 'sort -u README.md', 'sort -n -k2 README.md', 'sort -rn README.md | head', 'sort -t: -k1,1 README.md',
  'cat README.md | sort | uniq', 'sort README.md | uniq -c | sort -rn | head -10', 'uniq README.md', 'uniq -d README.md',
  'cut -d: -f1 README.md', 'cut -c1-80 src/x.ts', 'cut -f2 README.md | sort -u', 'tr a-z A-Z < README.md',
  "cat README.md | tr -d '\\r'", "echo hello | tr ' ' '\\n'", 'tr -s " " < README.md | head',
  // diff cmp file stat du df
  'diff src/x.ts src/index.ts', 'diff -u src/x.ts src/index.ts', 'diff -r src test', 'diff -q src/x.ts src/index.ts',
  'diff <(sort README.md) <(sort package.json)', 'cmp src/x.ts src/index.ts', 'cmp -s a b || echo differ', 'file src/x.ts',
  'file *', 'file -b package.json', 'stat package.json', 'stat -c %s package.json', 'stat --format="%y" README.md',
  'du -sh .', 'du -sh src', 'du -sh * | sort -h', 'du -h --max-depth=1 .', 'du -a src | sort -n | tail', 'df -h', 'df -h .',
  // which type basename dirname realpath readlink date
  'which node', 'which -a git', 'type ls', 'type -a python3', 'basename src/x.ts', 'basename src/x.ts .ts',
  'dirname src/x.ts', 'realpath src/x.ts', 'realpath .', 'readlink -f src', 'readlink -f package.json', 'date', 'date +%s',
  'date -u +%Y-%m-%dT%H:%M:%SZ', 'date -d yesterday +%F', 'date --iso-8601=seconds',
  // echo printf tree sed jq
  'echo hello', 'echo "done"', 'echo $HOME', 'echo -n foo', 'echo -e "a\\nb"', 'printf "%s\\n" hello', 'printf "%d\\n" 42',
  "printf '%s\\n' a b c | sort", 'tree', 'tree -L 2', 'tree src', 'tree -a -I node_modules', 'tree -d -L 3',
  "sed -n '10,40p' src/x.ts", "sed -n '1,20p' README.md", "sed -n '5p' package.json", "sed 's/foo/bar/g' src/x.ts",
  "sed -n '/export/p' src/x.ts", "sed '1d' README.md", "sed -n '$p' README.md", "sed -e 's/a/b/' -e 's/c/d/' README.md",
  "cat README.md | sed 's/^/> /'", "sed -n '/start/,/end/p' src/x.ts", "sed -E 's/[0-9]+/N/g' README.md",
  "sed -n '2~3p' README.md", "sed '/^$/d' README.md", "sed -n 'l' README.md", "sed = README.md | head",
  'jq . package.json', 'jq .scripts package.json', 'jq -r .version package.json', "jq '.dependencies | keys' package.json",
  'jq -r ".scripts | to_entries[] | .key" package.json', 'jq -c . package.json', "cat package.json | jq -r '.name'",
  "jq --arg k name '.[$k]' package.json", 'jq -s length package.json',
  // package managers
  'npm ls', 'npm ls --depth=0', 'npm list --json', 'npm view typescript version', 'npm outdated', 'npm root',
  'npm --version', 'npm config get registry', 'npm explain typescript', 'npm ls typescript',
  // combined pipelines
  'ls src | wc -l', 'cat src/x.ts | grep -n export | head -5', 'git diff --name-only | grep ts | sort',
  'find . -name "*.md" | head -5 && git status --short', 'wc -l src/*.ts | sort -n | tail -5',
  'grep -rn TODO src | cut -d: -f1 | sort | uniq -c', 'echo $(git rev-parse --short HEAD)', 'ls -la; pwd; git status',
  'head -5 README.md; tail -5 README.md', 'cat package.json | jq .version | tr -d \'"\'',
];

export const WRITERS_AND_RUNNERS: readonly string[] = [
  // sed
  "sed -i 's/a/b/' README.md", "sed -i.bak 's/a/b/' README.md", "sed --in-place 's/a/b/' README.md",
  "sed --in-pl 's/a/b/' README.md", "sed --in-place=.orig 's/a/b/' README.md", "sed -ni 's/a/b/p' README.md",
  "sed -Ei 's/a/b/' README.md", "sed -e 's/a/b/' -i README.md", "sed 's/a/b/' -i README.md", "sed --e='1e date' README.md",
  "sed '1e date' README.md", "sed 's/.*/date/e' README.md", "sed 's/a/b/w out.txt' README.md", "sed 'w out.txt' README.md",
  "sed -n '1W out.txt' README.md", "sed '\\%x%Ie date' README.md", "sed '/x/I,+2w out' README.md", "sed -f script.sed README.md",
  "sed --file=script.sed README.md", "sed '0,/x/{e id\n}' README.md", "sed -s -i~ 's/x/y/' README.md",
  // sort
  'sort -o out.txt README.md', 'sort --output=out.txt README.md', 'sort --outp=out.txt README.md', 'sort -uo out.txt README.md',
  'sort -oout.txt README.md', 'sort --comp=gzip README.md', 'sort --compress-program=sh README.md',
  'sort --files0-from=list README.md', 'sort -T /tmp README.md', 'sort --temporary-directory=tmp README.md',
  'sort README.md --output=out.txt',
  // find
  'find . -delete', 'find . -name "*.log" -delete', 'find . -exec rm {} \\;', 'find . -execdir cat {} +',
  'find . -ok rm {} \\;', 'find . -fprint out.txt', 'find . -fprint0 out.txt', 'find . -fprintf out.txt "%p"',
  'find . -fls out.txt', 'find -files0-from list', 'find . -name x -o -delete',
  // grep, rg
  'grep --files0-from=- foo', 'grep -r --devices=read --frobnicate foo .', 'rg --pre cat foo', 'rg --pre=./x.sh foo',
  'rg -z foo', 'rg --search-zip foo', 'rg -zn foo',
  // wc du file tree uniq date
  'wc --files0-from=list', 'wc --files0=list', 'du --files0-from=-', 'file -f names.txt', 'file -C -m magic',
  'tree -o out.txt', 'tree --fromfile list.txt', 'uniq README.md out.txt', 'date -s "2020-01-01"', 'date --set=now',
  'printf -v x "%s" y',
  // git
  'git log --output=out.txt', 'git diff --output=out.txt', 'git diff --ext-diff', 'git log --show-signature',
  'git branch newbranch', 'git branch -D main', 'git branch -m a b', 'git branch --set-upstream-to=origin/main',
  'git remote add origin x', 'git remote remove origin', 'git log --outp=x', 'git status --frob', 'git diff --outp=out.txt',
  // package managers
  'npm ls --script-shell=./x.sh', 'npm view x --userconfig=./rc', 'npm install', 'npm run build', 'npm config set a b',
  'npx tsc',
  // tar and others
  'tar xf a.tar', 'tar cf a.tar src', 'tar --to-command=sh -xf a.tar', 'tar -cf - src | cat',
  // output redirects to files
  'ls -la > out.txt', 'echo x >> README.md', 'cat a > b', 'git log --oneline > log.txt', 'grep foo src/x.ts &> out.txt',
  // unknown options of listed programs
  'ls --frob', 'cat --frob README.md', 'head --frob README.md', 'jq --frob . package.json', 'ls --s',
];
