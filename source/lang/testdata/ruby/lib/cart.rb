require_relative "helper"

module Shop
  # A cart of items.
  class Cart < Base
    MAX = 3

    def add(n)
      reset
      Helper.run(n)
      helper(n)
    end

    def self.create
      new
    end

    private

    def reset; end
  end
end

def helper(n)
  n
end
