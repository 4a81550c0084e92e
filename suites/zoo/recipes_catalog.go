package zoo

import (
	"fmt"
	"strings"
)

// recipeNutrition is one serving's nutrition facts, as the recipe page's "Per serving" table and the
// api/nutrition/<id> endpoint show them. Grams and milligrams are whole numbers.
type recipeNutrition struct {
	Calories    int `json:"calories"`
	FatG        int `json:"total_fat_g"`
	SatFatG     int `json:"saturated_fat_g"`
	CholMg      int `json:"cholesterol_mg"`
	SodiumMg    int `json:"sodium_mg"`
	CarbsG      int `json:"total_carbohydrate_g"`
	FiberG      int `json:"dietary_fiber_g"`
	SugarG      int `json:"total_sugars_g"`
	ProteinG    int `json:"protein_g"`
	VitaminCMg  int `json:"vitamin_c_mg"`
	CalciumMg   int `json:"calcium_mg"`
	IronMg      int `json:"iron_mg"`
	PotassiumMg int `json:"potassium_mg"`
}

// recipeFact is one row of a recipe's "Cook's notes" table (oven temperature, pan, storage …).
type recipeFact struct{ Label, Value string }

// recipe is a catalog entry of the `recipes` app. Times are minutes; Servings is the number of servings the
// nutrition is per; Yield is free text ("1 9x5-inch loaf").
type recipe struct {
	ID                     int
	Slug, Name, Author     string
	Category               string
	Summary                string
	Rating                 float64
	Reviews                int
	Servings               int
	Yield                  string
	Prep, Cook, Additional int
	AdditionalLabel        string // "Additional Time" by default; "Marinate Time", "Chill Time" …
	Ingredients            []string
	Directions             []string
	Nutrition              recipeNutrition
	Notes                  []recipeFact
	Keywords               string // extra search words
}

// Total is the total time in minutes.
func (r *recipe) Total() int { return r.Prep + r.Cook + r.Additional }

// Path is the app-relative page path, "recipe/<id>/<slug>".
func (r *recipe) Path() string { return fmt.Sprintf("recipe/%d/%s", r.ID, r.Slug) }

// recipeDuration formats minutes the way Allrecipes does: "25 mins", "1 hr", "1 hr 25 mins", "3 hrs 15 mins".
func recipeDuration(m int) string {
	h, mm := m/60, m%60
	var parts []string
	switch {
	case h == 1:
		parts = append(parts, "1 hr")
	case h > 1:
		parts = append(parts, fmt.Sprintf("%d hrs", h))
	}
	switch {
	case mm == 1:
		parts = append(parts, "1 min")
	case mm > 1 || h == 0:
		parts = append(parts, fmt.Sprintf("%d mins", mm))
	}
	return strings.Join(parts, " ")
}

// recipeCategories are the home page's browse links (slug, name).
var recipeCategories = []struct{ Slug, Name string }{
	{"breakfast", "Breakfast & Brunch"}, {"baking", "Bread & Baking"}, {"dinner", "Dinners"},
	{"soups", "Soups, Stews & Chili"}, {"world", "World Cuisine"}, {"desserts", "Cookies & Desserts"},
}

func recipeCategoryName(slug string) string {
	for _, c := range recipeCategories {
		if c.Slug == slug {
			return c.Name
		}
	}
	return slug
}

// recipeCatalog is the app's fixed data: 18 recipes, three per dish, in display order.
var recipeCatalog = []recipe{
	{ID: 20144, Slug: "best-ever-banana-bread", Name: "Best Ever Banana Bread", Author: "Shelley Albeluhn",
		Category: "baking", Rating: 4.7, Reviews: 12460, Servings: 10, Yield: "1 9x5-inch loaf",
		Prep: 15, Cook: 60, Additional: 10, AdditionalLabel: "Cool Time",
		Summary: "A moist, lightly spiced loaf that is the best use for very ripe bananas. Brown sugar and butter " +
			"give it a caramel note.",
		Ingredients: []string{"2 cups all-purpose flour", "1 teaspoon baking soda", "¼ teaspoon salt",
			"½ cup butter, softened", "¾ cup brown sugar", "2 large eggs, beaten",
			"2 ⅓ cups mashed overripe bananas"},
		Directions: []string{"Preheat the oven to 350°F (175°C). Lightly grease a 9x5-inch loaf pan.",
			"Combine flour, baking soda, and salt in a large bowl.",
			"Beat butter and brown sugar together in a separate bowl until smooth. Stir in eggs and mashed bananas until well blended.",
			"Stir banana mixture into flour mixture until just combined. Pour batter into the prepared loaf pan.",
			"Bake until a toothpick inserted into the center comes out clean, about 60 minutes.",
			"Let bread cool in the pan for 10 minutes, then turn out onto a wire rack."},
		Nutrition: recipeNutrition{Calories: 229, FatG: 8, SatFatG: 5, CholMg: 53, SodiumMg: 200, CarbsG: 38,
			FiberG: 1, SugarG: 22, ProteinG: 3, VitaminCMg: 5, CalciumMg: 17, IronMg: 1, PotassiumMg: 235},
		Notes: []recipeFact{{"Oven temperature", "350°F (175°C)"}, {"Pan", "9x5-inch loaf pan"},
			{"Storage", "Wrapped at room temperature for up to 3 days"}, {"Freezing", "Up to 3 months"}},
		Keywords: "quick bread loaf banana"},
	{ID: 21560, Slug: "moist-sour-cream-banana-bread", Name: "Moist Sour Cream Banana Bread",
		Author: "Cindy Carnes", Category: "baking", Rating: 4.6, Reviews: 3812, Servings: 16,
		Yield: "2 9x5-inch loaves", Prep: 20, Cook: 60,
		Summary: "Sour cream makes this double batch extra tender; one loaf for now and one for the freezer.",
		Ingredients: []string{"¼ cup white sugar", "1 teaspoon ground cinnamon", "¾ cup butter", "3 cups white sugar",
			"3 eggs", "6 very ripe bananas, mashed", "1 (16 ounce) container sour cream", "2 teaspoons vanilla extract",
			"2 teaspoons ground cinnamon", "½ teaspoon salt", "3 teaspoons baking soda", "4 ½ cups all-purpose flour"},
		Directions: []string{"Preheat the oven to 300°F (150°C). Grease two 9x5-inch loaf pans and dust with the cinnamon sugar.",
			"Cream butter and sugar; mix in eggs, bananas, sour cream, vanilla and cinnamon.",
			"Mix in salt, baking soda and flour. Divide into the prepared pans.",
			"Bake until a toothpick inserted in the center comes out clean, about 60 minutes."},
		Nutrition: recipeNutrition{Calories: 263, FatG: 10, SatFatG: 6, CholMg: 45, SodiumMg: 285, CarbsG: 42,
			FiberG: 1, SugarG: 25, ProteinG: 4, VitaminCMg: 4, CalciumMg: 38, IronMg: 1, PotassiumMg: 190},
		Notes: []recipeFact{{"Oven temperature", "300°F (150°C)"}, {"Pan", "Two 9x5-inch loaf pans"},
			{"Storage", "Airtight at room temperature for up to 4 days"}, {"Freezing", "Up to 3 months"}},
		Keywords: "quick bread loaf banana"},
	{ID: 23817, Slug: "vegan-banana-bread", Name: "Vegan Banana Bread", Author: "Kelsey Brandt",
		Category: "baking", Rating: 4.4, Reviews: 642, Servings: 12, Yield: "1 9x5-inch loaf",
		Prep: 15, Cook: 50, Additional: 15, AdditionalLabel: "Cool Time",
		Summary: "No eggs and no butter: coconut oil and a splash of plant milk keep this loaf soft.",
		Ingredients: []string{"3 ripe bananas, mashed", "⅓ cup melted coconut oil", "½ cup brown sugar",
			"¼ cup oat milk", "1 teaspoon vanilla extract", "1 ¾ cups all-purpose flour", "1 teaspoon baking soda",
			"½ teaspoon ground cinnamon", "¼ teaspoon salt"},
		Directions: []string{"Preheat the oven to 350°F (175°C) and line a 9x5-inch loaf pan with parchment.",
			"Whisk bananas, oil, sugar, oat milk and vanilla.",
			"Fold in flour, baking soda, cinnamon and salt until just combined.",
			"Bake for 50 minutes; cool 15 minutes before slicing."},
		Nutrition: recipeNutrition{Calories: 198, FatG: 6, SatFatG: 5, CholMg: 0, SodiumMg: 165, CarbsG: 35,
			FiberG: 2, SugarG: 15, ProteinG: 2, VitaminCMg: 3, CalciumMg: 12, IronMg: 1, PotassiumMg: 160},
		Notes: []recipeFact{{"Oven temperature", "350°F (175°C)"}, {"Pan", "9x5-inch loaf pan"},
			{"Storage", "Covered at room temperature for up to 3 days"}, {"Diet", "Vegan, dairy-free"}},
		Keywords: "quick bread loaf banana dairy-free eggless"},

	{ID: 24074, Slug: "worlds-best-lasagna", Name: "World's Best Lasagna", Author: "John Chandler",
		Category: "dinner", Rating: 4.8, Reviews: 19870, Servings: 12, Yield: "1 9x13-inch lasagna",
		Prep: 30, Cook: 150, Additional: 15, AdditionalLabel: "Rest Time",
		Summary: "Sausage, beef and a long-simmered sauce layered with ricotta and mozzarella: worth every minute.",
		Ingredients: []string{"1 pound sweet Italian sausage", "¾ pound lean ground beef", "½ cup minced onion",
			"2 cloves garlic, crushed", "1 (28 ounce) can crushed tomatoes", "2 (6 ounce) cans tomato paste",
			"2 (6.5 ounce) cans canned tomato sauce", "12 lasagna noodles", "16 ounces ricotta cheese", "1 egg",
			"¾ pound mozzarella cheese, sliced", "¾ cup grated Parmesan cheese"},
		Directions: []string{"Cook sausage, beef, onion and garlic until well browned. Stir in the tomatoes, paste and sauce; simmer for 1 ½ hours.",
			"Cook the noodles in boiling salted water for 8 to 10 minutes. Drain and rinse.",
			"Preheat the oven to 375°F (190°C). Mix ricotta with the egg.",
			"Layer sauce, noodles, ricotta, mozzarella and Parmesan in a 9x13-inch dish; repeat.",
			"Cover with foil and bake 25 minutes; uncover and bake 25 minutes more. Rest 15 minutes before serving."},
		Nutrition: recipeNutrition{Calories: 448, FatG: 21, SatFatG: 9, CholMg: 82, SodiumMg: 1788, CarbsG: 36,
			FiberG: 4, SugarG: 10, ProteinG: 30, VitaminCMg: 17, CalciumMg: 276, IronMg: 3, PotassiumMg: 721},
		Notes: []recipeFact{{"Oven temperature", "375°F (190°C)"}, {"Pan", "9x13-inch baking dish"},
			{"Make ahead", "Assemble up to 1 day ahead and refrigerate"}, {"Freezing", "Up to 3 months"}},
		Keywords: "pasta italian beef sausage"},
	{ID: 25318, Slug: "easy-spinach-lasagna", Name: "Easy Spinach Lasagna", Author: "Maria Torres",
		Category: "dinner", Rating: 4.5, Reviews: 1204, Servings: 8, Yield: "1 9x13-inch lasagna",
		Prep: 20, Cook: 60, Additional: 10, AdditionalLabel: "Rest Time",
		Summary: "A meatless weeknight lasagna with a creamy spinach-ricotta layer and no-boil noodles.",
		Ingredients: []string{"1 (10 ounce) package frozen chopped spinach, thawed", "2 cups ricotta cheese",
			"1 egg", "1 (24 ounce) jar marinara sauce", "9 no-boil lasagna noodles",
			"2 cups shredded mozzarella cheese", "½ cup grated Parmesan cheese"},
		Directions: []string{"Preheat the oven to 375°F (190°C).", "Mix spinach, ricotta and egg.",
			"Layer sauce, noodles, spinach mixture and mozzarella; repeat twice and top with Parmesan.",
			"Cover and bake 45 minutes; uncover and bake 15 minutes more. Rest 10 minutes."},
		Nutrition: recipeNutrition{Calories: 372, FatG: 16, SatFatG: 9, CholMg: 68, SodiumMg: 810, CarbsG: 33,
			FiberG: 3, SugarG: 8, ProteinG: 22, VitaminCMg: 6, CalciumMg: 402, IronMg: 3, PotassiumMg: 480},
		Notes: []recipeFact{{"Oven temperature", "375°F (190°C)"}, {"Pan", "9x13-inch baking dish"},
			{"Diet", "Vegetarian"}, {"Storage", "Refrigerate up to 4 days"}},
		Keywords: "pasta italian vegetarian"},
	{ID: 26702, Slug: "slow-cooker-lasagna", Name: "Slow Cooker Lasagna", Author: "Dana Whitfield",
		Category: "dinner", Rating: 4.3, Reviews: 956, Servings: 8, Yield: "1 6-quart slow cooker",
		Prep: 25, Cook: 240,
		Summary: "Uncooked noodles soften in the sauce while the slow cooker does the work.",
		Ingredients: []string{"1 pound lean ground beef", "1 onion, chopped", "2 cloves garlic, minced",
			"1 (29 ounce) can tomato sauce", "1 (6 ounce) can tomato paste", "1 teaspoon dried oregano",
			"1 (12 ounce) package lasagna noodles", "12 ounces cottage cheese", "½ cup grated Parmesan cheese",
			"16 ounces shredded mozzarella cheese"},
		Directions: []string{"Brown the beef with onion and garlic. Add tomato sauce, paste and oregano.",
			"Spoon a layer of sauce into the slow cooker; add noodles, cheeses and more sauce; repeat.",
			"Cover and cook on Low for 4 hours."},
		Nutrition: recipeNutrition{Calories: 512, FatG: 22, SatFatG: 11, CholMg: 91, SodiumMg: 1190, CarbsG: 42,
			FiberG: 4, SugarG: 9, ProteinG: 33, VitaminCMg: 12, CalciumMg: 390, IronMg: 4, PotassiumMg: 820},
		Notes: []recipeFact{{"Appliance", "6-quart slow cooker"}, {"Setting", "Low"},
			{"Storage", "Refrigerate up to 3 days"}},
		Keywords: "pasta italian beef crockpot"},

	{ID: 31045, Slug: "slow-cooker-beef-chili", Name: "Slow Cooker Beef Chili", Author: "Rob Hayes",
		Category: "soups", Rating: 4.7, Reviews: 2958, Servings: 8, Yield: "8 cups", Prep: 20, Cook: 480,
		Summary: "Set it in the morning and come home to a thick, smoky chili with two kinds of beans.",
		Ingredients: []string{"2 pounds ground beef chuck", "1 pound bulk Italian sausage",
			"3 (15 ounce) cans chili beans in spicy sauce", "1 (28 ounce) can diced tomatoes with juice",
			"1 (6 ounce) can tomato paste", "1 large yellow onion, chopped", "3 stalks celery, chopped",
			"1 green bell pepper, chopped", "2 tablespoons chili powder", "1 teaspoon ground cumin",
			"1 teaspoon smoked paprika"},
		Directions: []string{"Brown the beef and sausage in a skillet; drain.",
			"Put everything into a slow cooker and stir.", "Cover and cook on Low for 8 hours."},
		Nutrition: recipeNutrition{Calories: 345, FatG: 14, SatFatG: 5, CholMg: 71, SodiumMg: 912, CarbsG: 29,
			FiberG: 9, SugarG: 8, ProteinG: 27, VitaminCMg: 31, CalciumMg: 92, IronMg: 6, PotassiumMg: 1040},
		Notes: []recipeFact{{"Appliance", "Slow cooker"}, {"Setting", "Low"}, {"Spice level", "Medium"},
			{"Freezing", "Up to 4 months"}},
		Keywords: "beef beans crockpot stew"},
	{ID: 31270, Slug: "white-chicken-chili", Name: "White Chicken Chili", Author: "Laura Kim",
		Category: "soups", Rating: 4.6, Reviews: 1733, Servings: 6, Yield: "6 bowls", Prep: 15, Cook: 45,
		Summary: "Chicken, white beans and green chiles in a creamy broth.",
		Ingredients: []string{"1 tablespoon vegetable oil", "1 onion, chopped", "3 cloves garlic, minced",
			"2 (15 ounce) cans great Northern beans", "2 (4 ounce) cans chopped green chiles",
			"4 cups chicken broth", "3 cups shredded cooked chicken", "1 teaspoon ground cumin",
			"1 cup sour cream", "½ cup heavy whipping cream"},
		Directions: []string{"Sauté onion and garlic in oil.", "Add beans, chiles, broth, chicken and cumin; simmer 30 minutes.",
			"Stir in sour cream and cream just before serving."},
		Nutrition: recipeNutrition{Calories: 310, FatG: 12, SatFatG: 6, CholMg: 75, SodiumMg: 780, CarbsG: 22,
			FiberG: 6, SugarG: 3, ProteinG: 29, VitaminCMg: 9, CalciumMg: 110, IronMg: 3, PotassiumMg: 640},
		Notes:    []recipeFact{{"Pot", "Dutch oven"}, {"Spice level", "Mild"}, {"Storage", "Refrigerate up to 4 days"}},
		Keywords: "chicken beans stew"},
	{ID: 32118, Slug: "three-bean-vegetarian-chili", Name: "Three-Bean Vegetarian Chili", Author: "Priya Nair",
		Category: "soups", Rating: 4.5, Reviews: 1015, Servings: 8, Yield: "10 cups", Prep: 20, Cook: 40,
		Summary: "Black, kidney and pinto beans with sweet potato and a little cocoa for depth.",
		Ingredients: []string{"2 tablespoons olive oil", "1 onion, diced", "1 sweet potato, diced",
			"1 (15 ounce) can black beans", "1 (15 ounce) can kidney beans", "1 (15 ounce) can pinto beans",
			"1 (28 ounce) can crushed tomatoes", "2 tablespoons chili powder", "1 tablespoon cocoa powder",
			"2 cups vegetable broth"},
		Directions: []string{"Sauté onion and sweet potato in oil for 8 minutes.",
			"Add beans, tomatoes, spices, cocoa and broth.", "Simmer 30 minutes, stirring now and then."},
		Nutrition: recipeNutrition{Calories: 226, FatG: 4, SatFatG: 1, CholMg: 0, SodiumMg: 640, CarbsG: 38,
			FiberG: 12, SugarG: 7, ProteinG: 12, VitaminCMg: 18, CalciumMg: 95, IronMg: 4, PotassiumMg: 880},
		Notes:    []recipeFact{{"Pot", "Large pot"}, {"Diet", "Vegan, gluten-free"}, {"Spice level", "Medium"}},
		Keywords: "beans vegan vegetarian stew"},

	{ID: 41208, Slug: "fluffy-buttermilk-pancakes", Name: "Fluffy Buttermilk Pancakes", Author: "Grace Park",
		Category: "breakfast", Rating: 4.8, Reviews: 8731, Servings: 4, Yield: "12 pancakes", Prep: 10, Cook: 15,
		Summary: "Tall, tender diner-style pancakes. Let the batter rest while the griddle heats.",
		Ingredients: []string{"2 cups all-purpose flour", "2 tablespoons white sugar", "2 teaspoons baking powder",
			"1 teaspoon baking soda", "½ teaspoon salt", "2 cups buttermilk", "2 large eggs",
			"3 tablespoons butter, melted"},
		Directions: []string{"Whisk the dry ingredients in a large bowl.",
			"Whisk buttermilk, eggs and butter; pour into the dry ingredients and stir until just combined.",
			"Heat a lightly oiled griddle over medium-high heat.",
			"Pour ¼ cup of batter per pancake; cook until bubbles form, flip and brown the other side."},
		Nutrition: recipeNutrition{Calories: 380, FatG: 12, SatFatG: 7, CholMg: 121, SodiumMg: 1020, CarbsG: 55,
			FiberG: 2, SugarG: 13, ProteinG: 12, VitaminCMg: 1, CalciumMg: 330, IronMg: 3, PotassiumMg: 300},
		Notes: []recipeFact{{"Griddle temperature", "375°F (190°C)"}, {"Batter per pancake", "¼ cup"},
			{"Freezing", "Freeze cooked pancakes up to 2 months"}},
		Keywords: "breakfast brunch hotcakes"},
	{ID: 41330, Slug: "good-old-fashioned-pancakes", Name: "Good Old-Fashioned Pancakes", Author: "Dakota Kelly",
		Category: "breakfast", Rating: 4.7, Reviews: 16212, Servings: 4, Yield: "8 pancakes", Prep: 5, Cook: 15,
		Summary: "Pantry staples, one bowl, and thin golden pancakes in twenty minutes.",
		Ingredients: []string{"1 ½ cups all-purpose flour", "3 ½ teaspoons baking powder", "1 tablespoon white sugar",
			"¼ teaspoon salt", "1 ¼ cups milk", "3 tablespoons butter, melted", "1 egg"},
		Directions: []string{"Sift flour, baking powder, sugar and salt together.",
			"Make a well; pour in milk, melted butter and egg; mix until smooth.",
			"Cook ¼ cup portions on a hot oiled griddle until browned on both sides."},
		Nutrition: recipeNutrition{Calories: 158, FatG: 6, SatFatG: 4, CholMg: 40, SodiumMg: 430, CarbsG: 22,
			FiberG: 1, SugarG: 4, ProteinG: 5, VitaminCMg: 0, CalciumMg: 180, IronMg: 2, PotassiumMg: 110},
		Notes:    []recipeFact{{"Griddle temperature", "Medium-high"}, {"Batter per pancake", "¼ cup"}},
		Keywords: "breakfast brunch hotcakes"},
	{ID: 42015, Slug: "banana-oat-pancakes", Name: "Banana Oat Pancakes", Author: "Ines Duarte",
		Category: "breakfast", Rating: 4.4, Reviews: 587, Servings: 3, Yield: "9 pancakes", Prep: 10, Cook: 10,
		Summary: "Blender pancakes made from oats, banana and eggs: naturally sweet and gluten-free.",
		Ingredients: []string{"2 cups rolled oats", "2 ripe bananas", "2 eggs", "1 cup milk",
			"1 teaspoon baking powder", "1 teaspoon vanilla extract", "pinch of salt"},
		Directions: []string{"Blend everything until smooth; rest 5 minutes.",
			"Cook scant ¼ cup portions on a buttered skillet over medium heat, about 2 minutes per side."},
		Nutrition: recipeNutrition{Calories: 290, FatG: 7, SatFatG: 2, CholMg: 128, SodiumMg: 210, CarbsG: 46,
			FiberG: 6, SugarG: 12, ProteinG: 12, VitaminCMg: 6, CalciumMg: 150, IronMg: 3, PotassiumMg: 520},
		Notes:    []recipeFact{{"Equipment", "Blender"}, {"Diet", "Gluten-free if using certified oats"}},
		Keywords: "breakfast brunch hotcakes banana oatmeal gluten-free"},

	{ID: 52210, Slug: "chicken-tikka-masala", Name: "Chicken Tikka Masala", Author: "Anjali Mehta",
		Category: "world", Rating: 4.8, Reviews: 5317, Servings: 6, Yield: "6 servings", Prep: 30, Cook: 50,
		Additional: 60, AdditionalLabel: "Marinate Time",
		Summary: "Yogurt-marinated chicken, charred and simmered in a spiced tomato-cream sauce.",
		Ingredients: []string{"1 cup plain yogurt", "1 tablespoon lemon juice", "2 teaspoons ground cumin",
			"1 teaspoon ground cinnamon", "2 teaspoons cayenne pepper", "1 tablespoon minced fresh ginger",
			"3 boneless skinless chicken breasts, cut into bite-size pieces", "1 tablespoon butter",
			"1 clove garlic, minced", "1 jalapeño pepper, finely chopped", "2 teaspoons paprika",
			"1 (8 ounce) can tomato sauce", "1 cup heavy cream", "¼ cup chopped fresh cilantro"},
		Directions: []string{"Combine yogurt, lemon juice, spices and ginger; stir in chicken and marinate for 1 hour.",
			"Thread chicken onto skewers and grill until juices run clear, about 5 minutes per side.",
			"Melt butter; sauté garlic and jalapeño. Add paprika, tomato sauce and cream; simmer 20 minutes.",
			"Add the grilled chicken and simmer 10 minutes. Garnish with cilantro."},
		Nutrition: recipeNutrition{Calories: 404, FatG: 28, SatFatG: 16, CholMg: 143, SodiumMg: 868, CarbsG: 11,
			FiberG: 2, SugarG: 6, ProteinG: 29, VitaminCMg: 14, CalciumMg: 140, IronMg: 3, PotassiumMg: 710},
		Notes: []recipeFact{{"Spice level", "Medium-hot"}, {"Serve with", "Basmati rice or naan"},
			{"Make ahead", "Sauce keeps 3 days refrigerated"}},
		Keywords: "indian curry chicken"},
	{ID: 52477, Slug: "thai-green-curry-with-chicken", Name: "Thai Green Curry with Chicken",
		Author: "Somchai Wong", Category: "world", Rating: 4.6, Reviews: 2140, Servings: 4, Yield: "4 servings",
		Prep: 20, Cook: 25,
		Summary: "A fragrant coconut curry with Thai eggplant and basil, ready in under an hour.",
		Ingredients: []string{"1 tablespoon vegetable oil", "3 tablespoons green curry paste",
			"2 (14 ounce) cans coconut milk", "1 pound boneless chicken thighs, sliced", "1 cup Thai eggplant",
			"2 tablespoons fish sauce", "1 tablespoon palm sugar", "1 cup Thai basil leaves"},
		Directions: []string{"Fry the curry paste in oil until fragrant.",
			"Add coconut milk and bring to a simmer; add chicken and eggplant and cook 15 minutes.",
			"Season with fish sauce and sugar; stir in basil."},
		Nutrition: recipeNutrition{Calories: 512, FatG: 41, SatFatG: 31, CholMg: 95, SodiumMg: 1120, CarbsG: 14,
			FiberG: 3, SugarG: 8, ProteinG: 26, VitaminCMg: 8, CalciumMg: 70, IronMg: 7, PotassiumMg: 780},
		Notes:    []recipeFact{{"Spice level", "Hot"}, {"Serve with", "Jasmine rice"}},
		Keywords: "thai curry chicken coconut"},
	{ID: 53091, Slug: "chickpea-and-spinach-curry", Name: "Chickpea and Spinach Curry", Author: "Ravi Shankar",
		Category: "world", Rating: 4.5, Reviews: 1398, Servings: 4, Yield: "4 servings", Prep: 10, Cook: 25,
		Summary: "A quick chana saag with pantry spices, tomatoes and a big handful of spinach.",
		Ingredients: []string{"2 tablespoons vegetable oil", "1 onion, chopped", "3 cloves garlic, minced",
			"1 tablespoon curry powder", "1 teaspoon garam masala", "2 (15 ounce) cans chickpeas, drained",
			"1 (14 ounce) can diced tomatoes", "½ cup coconut milk", "5 ounces baby spinach"},
		Directions: []string{"Cook onion and garlic in oil until soft.", "Add spices, chickpeas, tomatoes and coconut milk; simmer 15 minutes.",
			"Stir in spinach until wilted."},
		Nutrition: recipeNutrition{Calories: 276, FatG: 11, SatFatG: 4, CholMg: 0, SodiumMg: 520, CarbsG: 36,
			FiberG: 10, SugarG: 7, ProteinG: 10, VitaminCMg: 25, CalciumMg: 120, IronMg: 5, PotassiumMg: 690},
		Notes:    []recipeFact{{"Diet", "Vegan"}, {"Spice level", "Mild"}, {"Serve with", "Rice or flatbread"}},
		Keywords: "indian curry vegan vegetarian chickpeas"},

	{ID: 60318, Slug: "best-chocolate-chip-cookies", Name: "Best Chocolate Chip Cookies", Author: "Dora Lee",
		Category: "desserts", Rating: 4.6, Reviews: 13944, Servings: 24, Yield: "48 cookies", Prep: 20, Cook: 10,
		Additional: 30, AdditionalLabel: "Chill Time",
		Summary: "Crisp edges, chewy middles, and a lot of chocolate.",
		Ingredients: []string{"1 cup butter, softened", "1 cup white sugar", "1 cup packed brown sugar", "2 eggs",
			"2 teaspoons vanilla extract", "1 teaspoon baking soda", "2 teaspoons hot water", "½ teaspoon salt",
			"3 cups all-purpose flour", "2 cups semisweet chocolate chips", "1 cup chopped walnuts"},
		Directions: []string{"Preheat the oven to 350°F (175°C).", "Cream butter and sugars; beat in eggs and vanilla.",
			"Dissolve baking soda in hot water; add to the batter with salt. Stir in flour, chips and nuts.",
			"Chill the dough 30 minutes, then drop by large spoonfuls onto ungreased pans.",
			"Bake until the edges are nicely browned, about 10 minutes."},
		Nutrition: recipeNutrition{Calories: 146, FatG: 8, SatFatG: 4, CholMg: 18, SodiumMg: 76, CarbsG: 19,
			FiberG: 1, SugarG: 13, ProteinG: 2, VitaminCMg: 0, CalciumMg: 10, IronMg: 1, PotassiumMg: 60},
		Notes:    []recipeFact{{"Oven temperature", "350°F (175°C)"}, {"Storage", "Airtight for up to 1 week"}},
		Keywords: "cookies dessert baking chocolate"},
	{ID: 60455, Slug: "chewy-oatmeal-raisin-cookies", Name: "Chewy Oatmeal Raisin Cookies", Author: "Hal Jensen",
		Category: "desserts", Rating: 4.5, Reviews: 4120, Servings: 36, Yield: "36 cookies", Prep: 15, Cook: 10,
		Summary: "Soft, cinnamon-scented oatmeal cookies packed with plump raisins.",
		Ingredients: []string{"1 cup butter, softened", "1 cup packed brown sugar", "½ cup white sugar", "2 eggs",
			"1 teaspoon vanilla extract", "1 ½ cups all-purpose flour", "1 teaspoon baking soda",
			"1 teaspoon ground cinnamon", "3 cups rolled oats", "1 cup raisins"},
		Directions: []string{"Preheat the oven to 350°F (175°C).", "Cream butter and sugars; beat in eggs and vanilla.",
			"Stir in flour, baking soda and cinnamon, then oats and raisins.",
			"Drop by rounded spoonfuls and bake 8 to 10 minutes."},
		Nutrition: recipeNutrition{Calories: 138, FatG: 6, SatFatG: 3, CholMg: 24, SodiumMg: 70, CarbsG: 20,
			FiberG: 1, SugarG: 11, ProteinG: 2, VitaminCMg: 0, CalciumMg: 12, IronMg: 1, PotassiumMg: 85},
		Notes:    []recipeFact{{"Oven temperature", "350°F (175°C)"}, {"Storage", "Airtight for up to 5 days"}},
		Keywords: "cookies dessert baking oatmeal oats"},
	{ID: 61002, Slug: "soft-sugar-cookies", Name: "Soft Sugar Cookies", Author: "Molly Reese",
		Category: "desserts", Rating: 4.4, Reviews: 2233, Servings: 30, Yield: "30 cookies", Prep: 15, Cook: 10,
		Additional: 60, AdditionalLabel: "Chill Time",
		Summary: "Thick, soft cut-out cookies that hold their shape for decorating.",
		Ingredients: []string{"1 ½ cups butter, softened", "2 cups white sugar", "4 eggs", "1 teaspoon vanilla extract",
			"5 cups all-purpose flour", "2 teaspoons baking powder", "1 teaspoon salt"},
		Directions: []string{"Cream butter and sugar; beat in eggs and vanilla.", "Stir in flour, baking powder and salt; chill 1 hour.",
			"Preheat the oven to 400°F (200°C). Roll out ¼ inch thick and cut into shapes.",
			"Bake 6 to 8 minutes; cool completely before frosting."},
		Nutrition: recipeNutrition{Calories: 181, FatG: 10, SatFatG: 6, CholMg: 45, SodiumMg: 150, CarbsG: 22,
			FiberG: 0, SugarG: 13, ProteinG: 2, VitaminCMg: 0, CalciumMg: 15, IronMg: 1, PotassiumMg: 30},
		Notes:    []recipeFact{{"Oven temperature", "400°F (200°C)"}, {"Rolled thickness", "¼ inch"}},
		Keywords: "cookies dessert baking cut-out"},
}

func recipeByID(id int) *recipe {
	for i := range recipeCatalog {
		if recipeCatalog[i].ID == id {
			return &recipeCatalog[i]
		}
	}
	return nil
}

// searchRecipes returns the recipes matching every word of q (case-insensitive) in their name, category,
// keywords or ingredients, in catalog order. An empty query matches nothing.
func searchRecipes(q string) []*recipe {
	words := strings.Fields(strings.ToLower(q))
	if len(words) == 0 {
		return nil
	}
	var out []*recipe
	for i := range recipeCatalog {
		r := &recipeCatalog[i]
		hay := strings.ToLower(r.Name + " " + recipeCategoryName(r.Category) + " " + r.Keywords + " " +
			strings.Join(r.Ingredients, " "))
		if matchesAllWords(hay, words) {
			out = append(out, r)
		}
	}
	return out
}

// recipeReviewPool is the text of the sample reviews shown on recipe pages (two per recipe, picked by id).
var recipeReviewPool = []struct{ Author, Text string }{
	{"Megan R.", "Followed it exactly and it came out perfect. My family asked for seconds."},
	{"Tom B.", "Great base recipe. Next time I'll cut the sugar a little."},
	{"Aisha K.", "Easy to follow and the timing was spot on."},
	{"Luis P.", "Made this for a potluck and came home with an empty dish."},
	{"Jen W.", "Good, but it needed a bit more salt for our taste."},
	{"Sam O.", "A keeper. I've made it three times this month."},
	{"Nora D.", "Doubled the recipe with no problems."},
}

// SampleReviews returns the recipe's two sample reviews (deterministic by id).
func (r *recipe) SampleReviews() []struct{ Author, Text string } {
	n := len(recipeReviewPool)
	return []struct{ Author, Text string }{recipeReviewPool[r.ID%n], recipeReviewPool[(r.ID/7+3)%n]}
}
