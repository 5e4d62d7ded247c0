<?php
namespace Shop\Core;

use Shop\Util\Helper;

/**
 * A cart of items.
 */
class Cart extends Base implements Store
{
    const MAX = 3;
    private int $count = 0;

    public function add(int $n): void
    {
        $this->reset();
        Helper::run($n);
        helper($n);
    }

    private function reset(): void {}
}

interface Store { public function add(int $n): void; }

enum Mode { case Fast; case Slow; }

trait Logs { public function log() {} }

function helper($n) { return $n; }
